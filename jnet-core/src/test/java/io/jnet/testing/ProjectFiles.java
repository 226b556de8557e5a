package io.jnet.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the project's root (README.md, .ci/run), found from a module's working directory upwards. */
public final class ProjectFiles {
    private ProjectFiles() {}

    /** The nearest {@code name} in the working directory or above it; AssertionError when there is none. */
    public static Path find(String name) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve(name))) return dir.resolve(name);
        }
        throw new AssertionError(name + " not found in " + Path.of("").toAbsolutePath() + " or above");
    }
}
