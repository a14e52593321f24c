package org.hsa4j.services.aql;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.Svm;
import org.hsa4j.services.rpc.CallEndedException;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.rpc.ServerCall;

/**
 * A call carried by an agent dispatch packet: one lane, arguments and results in the request
 * block ({@link AgentRequestLayout}), payloads through the pointers it names instead of send_n
 * chunks. Services see the same {@link ServerCall} as for a port.
 */
final class PacketCall extends ServerCall {
    private final Svm svm;
    private final long block;
    private final int opcode;
    private final long callerDispatch;
    private final long callerPacket;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile RpcStatus outcome;

    PacketCall(Svm svm, long block) {
        this.svm = svm;
        this.block = block;
        this.opcode = svm.getInt(block + AgentRequestLayout.OPCODE);
        this.callerDispatch = svm.getLong(block + AgentRequestLayout.CALLER_DISPATCH);
        this.callerPacket = svm.getLong(block + AgentRequestLayout.CALLER_PACKET);
    }

    @Override
    public int opcode() {
        return opcode;
    }

    @Override
    public long laneMask() {
        return 1L;
    }

    @Override
    public long arg(int lane, int index) {
        check(lane, index);
        return svm.getLong(block + AgentRequestLayout.ARGS + 8L * index);
    }

    @Override
    public void result(int lane, int index, long value) {
        check(lane, index);
        svm.setLong(block + AgentRequestLayout.ARGS + 8L * index, value);
    }

    private static void check(int lane, int index) {
        if (lane != 0 || index < 0 || index > 7) {
            throw new IllegalArgumentException("an agent dispatch call has lane 0 and words 0..7");
        }
    }

    @Override
    public byte[][] recvN() {
        long address = svm.getLong(block + AgentRequestLayout.PAYLOAD_IN);
        long length = svm.getLong(block + AgentRequestLayout.PAYLOAD_IN_LENGTH);
        if (length < 0 || length > Integer.MAX_VALUE - 8) {
            throw new CallEndedException(RpcStatus.BAD_REQUEST, "payload length " + length);
        }
        byte[][] out = new byte[64][];
        out[0] = length == 0 ? new byte[0] : svm.segment(address, length).toArray(ValueLayout.JAVA_BYTE);
        return out;
    }

    @Override
    public void sendN(byte[][] data) {
        byte[] d = data[0] == null ? new byte[0] : data[0];
        long address = svm.getLong(block + AgentRequestLayout.PAYLOAD_OUT);
        long capacity = svm.getLong(block + AgentRequestLayout.PAYLOAD_OUT_CAPACITY);
        svm.setLong(block + AgentRequestLayout.PAYLOAD_OUT_LENGTH, d.length);
        if (d.length > capacity) {
            throw new CallEndedException(RpcStatus.OVERFLOW, d.length + " bytes do not fit the " + capacity
                    + "-byte reply buffer");
        }
        if (d.length > 0) {
            MemorySegment.copy(d, 0, svm.segment(address, d.length), ValueLayout.JAVA_BYTE, 0, d.length);
        }
    }

    @Override
    public Svm svm() {
        return svm;
    }

    @Override
    public long callerDispatch() {
        return callerDispatch;
    }

    @Override
    public long callerPacket() {
        return callerPacket;
    }

    @Override
    protected void complete(RpcStatus status) {
        outcome = status;
        svm.setInt(block + AgentRequestLayout.STATUS, status.code());
        done.countDown();
    }

    /** Waits until the call ended (a deferred service may end it on another thread); TIMEOUT after {@code nanos}. */
    RpcStatus await(long nanos) throws InterruptedException {
        if (!done.await(nanos, TimeUnit.NANOSECONDS)) {
            // under the call's monitor: deferred work finishing now (a recv's copy) happens before or not at all
            runIfLive(() -> finish(RpcStatus.TIMEOUT));
            done.await();
        }
        return outcome;
    }
}
