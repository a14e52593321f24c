package org.hsa4j.agent;

import org.hsa4j.queue.Await;

/**
 * Waits for an agent's packet processor to look at every queue after now: two scans must
 * complete, because the first may have started before the caller's last store. Lets a test show
 * deterministically that a packet was seen and still not launched.
 */
final class Scans {
    private Scans() {
    }

    /** Returns once a full scan over all of {@code agent}'s queues started and ended after this call. */
    static void awaitFullScan(Agent agent) {
        long target = agent.completedScans() + 2;
        // each notification makes an idle unit scan once; an idle unit's timer no longer scans when nothing is new
        Await.until(() -> {
            if (agent.completedScans() >= target) {
                return true;
            }
            agent.notifyWork();
            return false;
        }, agent.name() + " to scan its queues twice");
    }
}
