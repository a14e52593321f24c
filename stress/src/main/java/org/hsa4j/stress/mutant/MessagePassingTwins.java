package org.hsa4j.stress.mutant;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Twins of the message-passing protocols: data, then a flag (a signal, an atomic, a packet header,
 * a completion signal), and a reader that sees the flag and must see the data.
 */
final class MessagePassingTwins {
    /** Offset of a second cache line in a twin's allocation, so flag and data never share a line. */
    static final long LINE = 64;

    private MessagePassingTwins() {
    }

    /** Kernel writes data then stores a signal with screlease; the host waits for it and reads. */
    static final class KernelToHost extends KernelTwin {
        private long data;
        private Signal flag;
        private long kernel;

        KernelToHost() {
            super("mp-signal-kernel-to-host", "SignalMessagePassingTest, MessagePassingLitmus.ReleaseAcquire",
                    "the kernel's storeScrelease on the signal becomes storeRelaxed (release removed)",
                    "flag seen, data stale");
        }

        @Override
        void prepare(TwinRig rig) {
            data = rig.fine(LINE);
            flag = rig.runtime().createSignal(0);
            kernel = rig.kernel("mp_kernel_to_host", wi -> {
                wi.svm().setInt(data, 42);
                if (weakened) {
                    flag.storeRelaxed(1);
                } else {
                    flag.storeScrelease(1);
                }
                steps.await(1);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(data, 0);
            flag.storeRelaxed(0);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            awaitSignal(flag, 1);
            int seen = host.getInt(data);
            steps.reach(1);
            rig.await(done);
            return Outcome.of(seen != 42, "flag 1, data " + seen);
        }
    }

    /** Host writes data then stores a signal with screlease; the kernel waits with scacquire and reads. */
    static final class HostToKernel extends KernelTwin {
        private long data;
        private long result;
        private Signal flag;
        private long kernel;

        HostToKernel() {
            super("mp-signal-host-to-kernel", "SignalWaitMessagePassingTest",
                    "the kernel's waitScacquire becomes waitRelaxed (acquire removed)",
                    "woken by the flag, data stale");
        }

        @Override
        void prepare(TwinRig rig) {
            data = rig.fine(LINE);
            result = rig.fine(LINE);
            flag = rig.runtime().createSignal(0);
            kernel = rig.kernel("mp_host_to_kernel", wi -> {
                Svm svm = wi.svm();
                svm.getInt(data);
                steps.reach(1);
                long deadline = System.nanoTime() + Steps.PATIENCE_NANOS;
                while ((weakened ? flag.waitRelaxed(SignalCondition.NE, 0, 1_000_000L, WaitState.BLOCKED)
                        : flag.waitScacquire(SignalCondition.NE, 0, 1_000_000L, WaitState.BLOCKED)) == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new TwinTimeoutException("the kernel never saw the host's flag");
                    }
                }
                svm.setInt(result, svm.getInt(data));
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(data, 0);
            host.setInt(result, -1);
            flag.storeRelaxed(0);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            host.setInt(data, 42);
            flag.storeScrelease(1);
            rig.await(done);
            int seen = host.getInt(result);
            return Outcome.of(seen != 42, "woken, data " + seen);
        }
    }

    /** A kernel writes two ints; the host waits for its completion signal and reads them. */
    static final class CompletionThenData extends KernelTwin {
        private long data;
        private long kernel;

        CompletionThenData() {
            super("completion-then-data", "CompletionSignalThenDataTest",
                    "the dispatch packet's release fence narrowed from SYSTEM to AGENT scope",
                    "completion seen, a kernel write missing");
        }

        @Override
        void prepare(TwinRig rig) {
            data = rig.fine(LINE);
            kernel = rig.kernel("write_two_ints", wi -> {
                wi.svm().setInt(data, 42);
                wi.svm().setInt(data + Integer.BYTES, 43);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setLong(data, 0);
            rig.await(rig.dispatch(kernel, 1, FenceScope.SYSTEM, weakened ? FenceScope.AGENT : FenceScope.SYSTEM));
            int a = host.getInt(data);
            int b = host.getInt(data + Integer.BYTES);
            return Outcome.of(a != 42 || b != 43, "completed, data " + a + " " + b);
        }
    }

    /** Data, a release fence, a relaxed flag store; the reader: relaxed flag load, acquire fence, data. */
    static final class FencedMessagePassing extends KernelTwin {
        private long x;
        private long y;
        private long kernel;

        FencedMessagePassing() {
            super("mp-fences", "FencedMessagePassingLitmus.ReleaseAcquireFences",
                    "the kernel's release fence narrowed from SYSTEM to WORKGROUP scope",
                    "r1 = 1 (flag), r2 = 0 (data)");
        }

        @Override
        void prepare(TwinRig rig) {
            x = rig.fine(LINE);
            y = rig.fine(LINE);
            kernel = rig.kernel("mp_fences", wi -> {
                Svm svm = wi.svm();
                svm.setInt(x, 1);
                Svm.fence(MemoryOrder.RELEASE, weakened ? MemoryScope.WORKGROUP : MemoryScope.SYSTEM);
                svm.atomicStoreInt(y, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                steps.reach(1);
                steps.await(2);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(x, 0);
            host.setInt(y, 0);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            int r1 = host.atomicLoadInt(y, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            Svm.fence(MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            int r2 = host.getInt(x);
            steps.reach(2);
            rig.await(done);
            return Outcome.of(r1 == 1 && r2 == 0, "r1 = " + r1 + ", r2 = " + r2);
        }
    }

    /** A kernel writes a dispatch packet's body with plain stores, then its header with a release store. */
    static final class PacketPublish extends KernelTwin {
        static final int HEADER_WORD = 0x0001_1502;
        private long slot;
        private long kernel;

        PacketPublish() {
            super("aql-packet-publish", "AqlPacketPublishTest",
                    "the header's release store becomes a relaxed store (release removed)",
                    "valid header, body field missing (torn packet)");
        }

        @Override
        void prepare(TwinRig rig) {
            slot = rig.fine(AqlPacket.SIZE);
            kernel = rig.kernel("publish_packet", wi -> {
                Svm svm = wi.svm();
                svm.setShort(slot + KernelDispatchPacket.WORKGROUP_SIZE_X, (short) 8);
                svm.setInt(slot + KernelDispatchPacket.GRID_SIZE_X, 64);
                svm.setLong(slot + KernelDispatchPacket.KERNEL_OBJECT, 0x1111_2222_3333_4444L);
                svm.setLong(slot + KernelDispatchPacket.KERNARG_ADDRESS, 0x5555_6666_7777_8888L);
                svm.atomicStoreInt(slot + AqlPacket.HEADER, HEADER_WORD,
                        weakened ? MemoryOrder.RELAXED : MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                steps.reach(1);
                steps.await(2);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.fill(slot, AqlPacket.SIZE, (byte) 0);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            int header = host.atomicLoadInt(slot + AqlPacket.HEADER, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            boolean whole = host.getShort(slot + KernelDispatchPacket.WORKGROUP_SIZE_X) == 8
                    && host.getInt(slot + KernelDispatchPacket.GRID_SIZE_X) == 64
                    && host.getLong(slot + KernelDispatchPacket.KERNEL_OBJECT) == 0x1111_2222_3333_4444L
                    && host.getLong(slot + KernelDispatchPacket.KERNARG_ADDRESS) == 0x5555_6666_7777_8888L;
            steps.reach(2);
            rig.await(done);
            boolean published = header == HEADER_WORD;
            return Outcome.of(!published || !whole, published ? (whole ? "WHOLE" : "TORN") : "header " + header);
        }
    }

    /** Waits (bounded) until {@code flag} is non-zero, with scacquire. */
    static void awaitSignal(Signal flag, long value) {
        long deadline = System.nanoTime() + Steps.PATIENCE_NANOS;
        while (flag.waitScacquire(SignalCondition.GTE, value, 1_000_000L, WaitState.BLOCKED) < value) {
            if (System.nanoTime() - deadline > 0) {
                throw new TwinTimeoutException("the host never saw the kernel's flag");
            }
        }
    }
}
