package io.jnet.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The tools the tests need are listed the same way in {@link Tools}, {@code .ci/run} and the README. */
class ToolListTest {

    /** A file of the project's root: the tests run in a module's directory, one below it. */
    static Path projectFile(String name) {
        return ProjectFiles.find(name);
    }

    @Test
    void ciRunInstallsExactlyTheToolsTheTestsUse() throws IOException {
        String run = Files.readString(projectFile(".ci/run"));
        Matcher m = Pattern.compile("(?m)^for p in ([^;]+); do").matcher(run);
        assertThat(m.find()).as(".ci/run has its 'for p in cmd:package ...' list").isTrue();
        Map<String, String> listed = new LinkedHashMap<>();
        for (String pair : m.group(1).trim().split("\\s+")) {
            String[] cp = pair.split(":");
            if (!cp[0].equals("mvn")) listed.put(cp[0], cp[1]);
        }
        assertThat(listed).containsExactlyInAnyOrderEntriesOf(Tools.DEBIAN_PACKAGES);
    }

    @Test
    void readmeNamesEveryPackageAndCommand() throws IOException {
        String readme = Files.readString(projectFile("README.md")).replaceAll("\\s+", " ");
        int at = readme.indexOf("Kernel-interop tests need root");
        assertThat(at).as("README's set-up section lists the tools").isNotNegative();
        String sentence = readme.substring(at, readme.indexOf(". ", at));
        Tools.DEBIAN_PACKAGES.forEach((cmd, pkg) -> assertThat(sentence).contains(pkg).contains(cmd));
    }

    @Test
    void aMissingToolSkipsWithThePackageName() {
        assertThat(Tools.notInstalled("ping")).isEqualTo("'ping' is not installed (Debian package iputils-ping; .ci/run installs it)");
        assertThat(Tools.notInstalled("no-such-tool")).isEqualTo("'no-such-tool' is not installed");
    }
}
