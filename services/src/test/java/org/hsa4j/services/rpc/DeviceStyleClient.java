package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.fail;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;

/**
 * A client written on the port words as {@code hsa4j_rpc.cuh} writes them from a CUDA kernel: a
 * device port locked by compare-and-swap, plain stores of the packet, the flag flipped with a
 * screlease store, no pending bit and no doorbell (a GPU without host-native atomics may not
 * read-modify-write the bitmap), waits bounded by a deadline. The Java twin of the header's
 * protocol, so the protocol is checked on any machine.
 */
final class DeviceStyleClient {
    private static final long WAIT_NANOS = 20_000_000_000L;

    private final Svm svm;
    private final long set;
    private final int agent;

    DeviceStyleClient(Svm svm, long set) {
        this.svm = svm;
        this.set = set;
        this.agent = svm.agentIndex();
    }

    /** Address of device port {@code i} (0-based among the device ports). */
    long devicePort(int i) {
        int first = svm.getInt(set + RpcLayout.SET_DEVICE_FIRST);
        if (i >= svm.getInt(set + RpcLayout.SET_DEVICE_PORTS)) {
            throw new IllegalArgumentException("no device port " + i);
        }
        return set + svm.getLong(set + RpcLayout.SET_PORTS_OFFSET) + (first + i) * svm.getLong(set + RpcLayout.SET_PORT_STRIDE);
    }

    void lock(long port) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (svm.atomicCompareExchangeInt(port + RpcLayout.LOCK, 0, 1, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) != 0) {
            if (System.nanoTime() - deadline > 0) {
                fail("device port lock still taken after 20 s");
            }
            Thread.onSpinWait();
        }
        awaitTurn(port, svm.getInt(port + RpcLayout.CLIENT_FLAG));
    }

    void unlock(long port) {
        svm.storeIntRelease(port + RpcLayout.LOCK, 0);
    }

    /** Writes the OPEN packet of {@code opcode} for {@code laneMask} (arguments already in the lanes) and hands the turn over. */
    void open(long port, int opcode, long laneMask) {
        svm.setInt(port + RpcLayout.OPCODE, opcode);
        svm.setLong(port + RpcLayout.LANE_MASK, laneMask);
        svm.setLong(port + RpcLayout.CALLER_DISPATCH, 0);
        svm.setLong(port + RpcLayout.CALLER_PACKET, 0);
        svm.setInt(port + RpcLayout.CALLER_AGENT, agent);
        post(port, RpcLayout.KIND_OPEN);
    }

    /** Hands the turn to the server with a packet of {@code kind}: a plain store of the kind, a screlease flip, nothing else. */
    int post(long port, int kind) {
        svm.setInt(port + RpcLayout.KIND, kind);
        int flag = svm.getInt(port + RpcLayout.CLIENT_FLAG) ^ 1;
        svm.storeIntRelease(port + RpcLayout.CLIENT_FLAG, flag);
        return flag;
    }

    /** Waits (bounded) until the server flag equals {@code flag}; returns the status word. */
    int awaitTurn(long port, int flag) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (svm.loadIntAcquire(port + RpcLayout.SERVER_FLAG) != flag) {
            if (System.nanoTime() - deadline > 0) {
                fail("no server packet on a device port after 20 s: the device port was never served");
            }
            Thread.onSpinWait();
        }
        return svm.getInt(port + RpcLayout.STATUS);
    }

    /** Waits for the server's packet after the last post. */
    int awaitServer(long port) {
        return awaitTurn(port, svm.getInt(port + RpcLayout.CLIENT_FLAG));
    }

    long lane(long port, int lane, int word) {
        return port + RpcLayout.laneOffset(lane) + 8L * word;
    }
}
