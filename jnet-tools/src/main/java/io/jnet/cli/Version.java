package io.jnet.cli;

import picocli.CommandLine;

/** The jnet version and the runtime it runs on. */
final class Version {
    /** The release this build belongs to (the Maven project version). */
    static final String VERSION = "0.1.0-SNAPSHOT";

    private Version() {}

    /** Lines {@code jnet version} prints. */
    static String[] lines() {
        return new String[] {
            "jnet " + VERSION,
            "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ", " + System.getProperty("java.vendor") + ")",
            "OS " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch")
        };
    }

    /** For {@code jnet --version}. */
    static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() { return lines(); }
    }
}
