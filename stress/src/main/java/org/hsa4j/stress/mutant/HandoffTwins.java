package org.hsa4j.stress.mutant;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.DispatchCompletion;

/**
 * Twins of the protocols where host and kernel take turns on shared data: the sync_2way flag
 * handoff, the CAS lock of the binary-tree sample, and a shared counter (the shape of the signal
 * add/subtract, CAS-increment and write-index reservation tests: every party must get its own
 * ticket and no update may be lost).
 */
final class HandoffTwins {
    private HandoffTwins() {
    }

    /** Host: payload, flag := 1 (release); kernel: flag (acquire), payload, reply, flag := 2 (release). */
    static final class Sync2Way extends KernelTwin {
        private long flag;
        private long payload;
        private long reply;
        private long kernel;

        Sync2Way() {
            super("sync-2way-handoff", "Sync2WayFlagHandoffTest, Sync2WayKernelHandoffTest",
                    "the kernel's acquire load of the flag narrowed from SYSTEM to WORKGROUP scope",
                    "flag seen, payload stale (reply built from old data)");
        }

        @Override
        void prepare(TwinRig rig) {
            flag = rig.fine(MessagePassingTwins.LINE);
            payload = rig.fine(MessagePassingTwins.LINE);
            reply = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("sync_2way_device", wi -> {
                Svm svm = wi.svm();
                svm.getInt(payload);
                steps.reach(1);
                steps.await(2);
                int f = svm.atomicLoadInt(flag, MemoryOrder.ACQUIRE,
                        weakened ? MemoryScope.WORKGROUP : MemoryScope.SYSTEM);
                svm.setInt(reply, f == 1 ? svm.getInt(payload) + 1 : -1);
                svm.atomicStoreInt(flag, 2, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                steps.reach(3);
                steps.await(4);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(flag, 0);
            host.setInt(payload, 0);
            host.setInt(reply, 0);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            host.setInt(payload, 42);
            host.atomicStoreInt(flag, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            steps.reach(2);
            steps.await(3);
            int f = host.atomicLoadInt(flag, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            int r = host.getInt(reply);
            steps.reach(4);
            rig.await(done);
            return Outcome.of(f != 2 || r != 43, "flag " + f + ", reply " + r);
        }
    }

    /** Kernel, then host: take a CAS lock (acquire), increment a plain counter, unlock (release). */
    static final class CasLock extends KernelTwin {
        private long lock;
        private long counter;
        private long kernel;

        CasLock() {
            super("host-kernel-cas-lock", "HostKernelCasLockTest",
                    "the kernel's unlock (release store) narrowed from SYSTEM to WORKGROUP scope",
                    "counter 1 after two locked increments (lost update)");
        }

        @Override
        void prepare(TwinRig rig) {
            lock = rig.fine(MessagePassingTwins.LINE);
            counter = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("locked_increment", wi -> {
                Svm svm = wi.svm();
                if (svm.atomicCompareExchangeInt(lock, 0, 1, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) != 0) {
                    throw new IllegalStateException("the kernel found the lock taken");
                }
                svm.setInt(counter, svm.getInt(counter) + 1);
                svm.atomicStoreInt(lock, 0, MemoryOrder.RELEASE, weakened ? MemoryScope.WORKGROUP : MemoryScope.SYSTEM);
                steps.reach(1);
                steps.await(2);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(lock, 0);
            host.setInt(counter, 0);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            int witness = host.atomicCompareExchangeInt(lock, 0, 1, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            host.setInt(counter, host.getInt(counter) + 1);
            host.atomicStoreInt(lock, 0, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            steps.reach(2);
            rig.await(done);
            int total = host.getInt(counter);
            return Outcome.of(witness != 0 || total != 2, "lock " + (witness == 0 ? "free" : "held") + ", counter " + total);
        }
    }

    /** Kernel, then host: each takes a ticket with a system-scope fetch-and-add on one counter. */
    static final class Ticket extends KernelTwin {
        private long fineCounter;
        private long coarseCounter;
        private long kernelTicket;
        private long kernel;

        Ticket() {
            super("ticket-counter", "SignalAddSubtractTest, SignalCasIncrementTest, WriteIndexReservationTest",
                    "the counter moved from fine-grained to coarse-grained memory (system scope acts at agent scope there)",
                    "both parties got the same ticket, or an increment was lost");
        }

        @Override
        void prepare(TwinRig rig) {
            fineCounter = rig.fine(MessagePassingTwins.LINE);
            coarseCounter = rig.coarse(MessagePassingTwins.LINE);
            kernelTicket = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("take_ticket", wi -> {
                Svm svm = wi.svm();
                long counter = weakened ? coarseCounter : fineCounter;
                svm.setLong(kernelTicket, svm.atomicAddLong(counter, 1, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM));
                steps.reach(1);
                steps.await(2);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            long counter = weakened ? coarseCounter : fineCounter;
            host.setLong(counter, 0);
            host.setLong(kernelTicket, -1);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            long hostTicket = host.atomicAddLong(counter, 1, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
            steps.reach(2);
            rig.await(done);
            long k = host.getLong(kernelTicket);
            long total = host.getLong(counter);
            return Outcome.of(k == hostTicket || total != 2,
                    "tickets kernel " + k + ", host " + hostTicket + ", counter " + total);
        }
    }
}
