package io.jnet.nio;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Runs an unchanged program's main class on jnet, for when {@code -javaagent} does not suit:
 * {@code java -cp jnet-core.jar:app.jar io.jnet.nio.JnetLauncher [--config FILE] MAIN_CLASS [ARGS...]}. It installs
 * the network as {@link JnetAgent} does (the same configuration sources), then calls {@code MAIN_CLASS.main(ARGS)}.
 * Exits with status 2 and a message on standard error for a usage error.
 */
public final class JnetLauncher {
    private JnetLauncher() {}

    public static void main(String[] args) throws Throwable {
        int i = 0;
        Path config = null;
        if (args.length >= 2 && args[0].equals("--config")) {
            config = Path.of(args[1]);
            i = 2;
        }
        if (i >= args.length) {
            System.err.println("usage: java -cp jnet-core.jar:APP io.jnet.nio.JnetLauncher [--config FILE] MAIN_CLASS [ARGS...]");
            System.exit(2);
        }
        JnetAgent.install(config);
        Class<?> main = Class.forName(args[i], true, ClassLoader.getSystemClassLoader());
        MethodHandle mh = MethodHandles.publicLookup().findStatic(main, "main", MethodType.methodType(void.class, String[].class));
        mh.invokeExact(Arrays.copyOfRange(args, i + 1, args.length));
    }
}
