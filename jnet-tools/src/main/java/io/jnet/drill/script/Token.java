package io.jnet.drill.script;

/**
 * One lexical token of a script.
 *
 * @param kind what it is
 * @param text its value: the word, the number as written, a string's or command's content without its quotes, a
 *     code block's content (trimmed of spaces and tabs at both ends), an option's name without {@code --}, or the
 *     character of a {@link Kind#CHAR}
 * @param pos where it starts
 * @param endLine the line of its last character (a command or code block may span lines)
 */
record Token(Kind kind, String text, SourcePos pos, int endLine) {

    /** The kinds of tokens, as packetdrill's lexer has them (its keywords are {@link #WORD}s here). */
    enum Kind {
        WORD, INTEGER, HEX_INTEGER, FLOAT, STRING, BACK_QUOTED, CODE, OPTION, ELLIPSIS, IPV4_ADDR, IPV6_ADDR, CHAR, EOF
    }

    boolean isChar(char c) {
        return kind == Kind.CHAR && text.charAt(0) == c;
    }

    boolean isWord(String word) {
        return kind == Kind.WORD && text.equals(word);
    }

    /** The token as a user would name it in a message: {@code '='}, {@code 'ack'}, {@code end of input}. */
    String describe() {
        return switch (kind) {
            case EOF -> "end of input";
            case STRING -> "string \"" + shorten(text) + "\"";
            case BACK_QUOTED -> "command `" + shorten(text) + "`";
            case CODE -> "code block %{" + shorten(text) + "}%";
            case OPTION -> "option '--" + shorten(text) + "'";
            default -> "'" + shorten(text) + "'";
        };
    }

    private static String shorten(String s) {
        String oneLine = s.replace('\n', ' ');
        return oneLine.length() <= 24 ? oneLine : oneLine.substring(0, 21) + "...";
    }
}
