package io.jnet.drill.play;

import java.util.Map;
import java.util.TreeMap;

/**
 * The script's descriptor numbers and the target's: a script counts as a fresh process does (the first socket is
 * 3, Linux gives the lowest free number), while a target may hand out other numbers (the kernel target runs inside
 * a JVM that holds dozens of files). New descriptors get the lowest free script number; arguments are translated
 * back. A number the script never got is passed on as it is (the target refuses it with EBADF).
 */
final class FdTable {
    private final TreeMap<Integer, Integer> scriptToTarget = new TreeMap<>();

    /** Records a new target descriptor and returns its script number. */
    synchronized int open(int targetFd) {
        int n = 3;
        for (int used : scriptToTarget.keySet()) {
            if (used == n) n++;
            else if (used > n) break;
        }
        scriptToTarget.put(n, targetFd);
        return n;
    }

    /** The target's number for a script number. */
    synchronized int target(int scriptFd) {
        Integer t = scriptToTarget.get(scriptFd);
        return t == null ? scriptFd : t;
    }

    /** Forgets a closed script number. */
    synchronized void close(int scriptFd) { scriptToTarget.remove(scriptFd); }

    synchronized Map<Integer, Integer> snapshot() { return Map.copyOf(scriptToTarget); }
}
