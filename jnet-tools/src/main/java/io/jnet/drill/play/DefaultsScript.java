package io.jnet.drill.play;

import java.util.List;

/**
 * What the {@code defaults.sh} that packetdrill suites call first ({@code `../common/defaults.sh`},
 * {@code `./defaults.sh`}) sets: Linux's production TCP settings, as the kernel's packetdrill selftests define them.
 * The player applies them as sysctls instead of running a shell; the script's other commands run after.
 */
final class DefaultsScript {
    private DefaultsScript() {}

    /** True when a command line names the defaults script. */
    static boolean is(String command) {
        String c = command.strip();
        return c.equals("../common/defaults.sh") || c.equals("./defaults.sh") || c.equals("defaults.sh");
    }

    /** NAME=VALUE pairs, in order. */
    static final List<String[]> SYSCTLS = List.of(
            new String[] {"net.ipv4.tcp_rmem", "4096 540000 15728640"},
            new String[] {"net.ipv4.tcp_wmem", "4096 262144 4194304"},
            new String[] {"net.ipv4.tcp_timestamps", "1"},
            new String[] {"net.ipv4.tcp_syn_retries", "5"},
            new String[] {"net.ipv4.tcp_synack_retries", "5"},
            new String[] {"net.ipv4.tcp_frto", "2"},
            new String[] {"net.ipv4.tcp_sack", "1"},
            new String[] {"net.ipv4.tcp_dsack", "1"},
            new String[] {"net.ipv4.tcp_reordering", "3"},
            new String[] {"net.ipv4.tcp_congestion_control", "cubic"},
            new String[] {"net.ipv4.tcp_slow_start_after_idle", "0"},
            new String[] {"net.ipv4.tcp_early_retrans", "4"},
            new String[] {"net.ipv4.tcp_recovery", "1"},
            new String[] {"net.ipv4.tcp_tso_win_divisor", "3"},
            new String[] {"net.ipv4.tcp_ecn", "0"},
            new String[] {"net.ipv4.tcp_pacing_ss_ratio", "200"},
            new String[] {"net.ipv4.tcp_pacing_ca_ratio", "120"},
            new String[] {"net.ipv4.tcp_notsent_lowat", "4294967295"},
            new String[] {"net.ipv4.tcp_fastopen", "3"},
            new String[] {"net.ipv4.tcp_syncookies", "1"});
}
