package org.hsa4j.services.aql;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.DeviceType;
import org.hsa4j.idle.Idler;
import org.hsa4j.kernel.ServiceCaller;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.packet.AgentDispatchPacket;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.rpc.RpcException;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Service calls from kernels the HSA way: the work-item writes an agent dispatch packet into a
 * queue of the CPU agent with the spec's submission protocol (reserve an id, write the body
 * through its SVM view, publish the header with a release store, ring the doorbell) and waits on
 * the packet's completion signal; the CPU agent runs the service ({@link AgentDispatchBridge}).
 *
 * <p>Each call borrows a slot: a request block ({@link AgentRequestLayout}) and a completion
 * signal, made up front (a kernel does not create signals). With every slot borrowed a caller
 * waits holding nothing, as with RPC ports.
 */
public final class AgentDispatchClient implements AutoCloseable {
    private static final long WAIT_SLICE_NANOS = 100_000_000L;

    private final HsaRuntime runtime;
    private final Queue queue;
    private final long blocks;
    private final Signal[] signals;
    private final ConcurrentLinkedQueue<Integer> free = new ConcurrentLinkedQueue<>();
    private final WaitState waitState;

    /** A client of {@code queue} (a CPU agent queue) with {@code slots} calls in flight at most. */
    public AgentDispatchClient(HsaRuntime runtime, Queue queue, int slots, WaitState waitState) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.queue = Objects.requireNonNull(queue, "queue");
        this.waitState = Objects.requireNonNull(waitState, "waitState");
        if (!(queue.agent() instanceof Agent agent) || agent.deviceType() != DeviceType.CPU) {
            throw new IllegalArgumentException("service calls go to a queue of the CPU agent, not " + queue.agent());
        }
        if (slots < 1) {
            throw new IllegalArgumentException("at least one slot, was " + slots);
        }
        this.blocks = runtime.hostMalloc(slots * AgentRequestLayout.BYTES);
        this.signals = new Signal[slots];
        for (int i = 0; i < slots; i++) {
            signals[i] = runtime.createSignal(0);
            free.add(i);
        }
    }

    /** The queue packets go to. */
    public Queue queue() {
        return queue;
    }

    /**
     * One call: {@code inOut} holds up to eight arguments and receives the eight results when the
     * status is OK. {@code payloadIn}/{@code payloadInLength} is what the service receives as its
     * recv_n payload, {@code payloadOut}/{@code payloadOutCapacity} where its send_n payload goes
     * (all SVM; 0 for none); the length the service sent lands in {@code inOut[8]} when
     * {@code inOut} has a ninth element.
     */
    public RpcStatus invoke(ServiceCaller wi, int opcode, long[] inOut, long payloadIn, long payloadInLength,
                            long payloadOut, long payloadOutCapacity) {
        Svm svm = wi.svm();
        int slot = borrow();
        try {
            long block = blocks + slot * AgentRequestLayout.BYTES;
            Signal done = signals[slot];
            for (int i = 0; i < 8; i++) {
                svm.setLong(block + AgentRequestLayout.ARGS + 8L * i, i < inOut.length ? inOut[i] : 0);
            }
            svm.setLong(block + AgentRequestLayout.PAYLOAD_IN, payloadIn);
            svm.setLong(block + AgentRequestLayout.PAYLOAD_IN_LENGTH, payloadInLength);
            svm.setLong(block + AgentRequestLayout.PAYLOAD_OUT, payloadOut);
            svm.setLong(block + AgentRequestLayout.PAYLOAD_OUT_CAPACITY, payloadOutCapacity);
            svm.setLong(block + AgentRequestLayout.PAYLOAD_OUT_LENGTH, 0);
            svm.setInt(block + AgentRequestLayout.STATUS, RpcStatus.PROTOCOL_ERROR.code());
            svm.setInt(block + AgentRequestLayout.OPCODE, opcode);
            svm.setLong(block + AgentRequestLayout.CALLER_DISPATCH, wi.kernargAddress());
            svm.setLong(block + AgentRequestLayout.CALLER_PACKET, wi.packetId());
            done.storeRelaxed(1);

            long id = queue.reserveSlot();
            long packet = queue.packetAddress(id);
            svm.fill(packet + 4, AqlPacket.SIZE - 4, (byte) 0);
            svm.setLong(packet + AgentDispatchPacket.RETURN_ADDRESS, block);
            svm.setLong(packet + AgentDispatchPacket.ARG0, block);
            svm.setLong(packet + AqlPacket.COMPLETION_SIGNAL, done.handle());
            short header = PacketHeader.of(PacketType.AGENT_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM);
            svm.atomicStoreInt(packet, PacketHeader.word(header, (short) AgentDispatchBridge.SERVICE_CALL_TYPE),
                    MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            queue.ringDoorbell(id);

            while (done.waitScacquire(SignalCondition.EQ, 0, WAIT_SLICE_NANOS, waitState) != 0) {
                // the signal wait idles through the runtime's strategy; each slice ends to look again
            }
            RpcStatus status = RpcStatus.of(svm.getInt(block + AgentRequestLayout.STATUS));
            if (status == RpcStatus.OK) {
                for (int i = 0; i < Math.min(8, inOut.length); i++) {
                    inOut[i] = svm.getLong(block + AgentRequestLayout.ARGS + 8L * i);
                }
            }
            if (inOut.length > 8) {
                inOut[8] = svm.getLong(block + AgentRequestLayout.PAYLOAD_OUT_LENGTH);
            }
            return status;
        } finally {
            free.add(slot);
        }
    }

    /**
     * One call without payloads: result 0.
     *
     * @throws RpcException when the status is not OK
     */
    public long call(ServiceCaller wi, int opcode, long... args) {
        long[] inOut = new long[8];
        System.arraycopy(args, 0, inOut, 0, Math.min(8, args.length));
        RpcStatus s = invoke(wi, opcode, inOut, 0, 0, 0, 0);
        if (s != RpcStatus.OK) {
            throw new RpcException(s, "agent dispatch service call failed");
        }
        return inOut[0];
    }

    private int borrow() {
        Integer slot = free.poll();
        if (slot != null) {
            return slot;
        }
        Idler idler = runtime.signals().idleStrategy().idler().blocker(this);
        while ((slot = free.poll()) == null) {
            if (Thread.currentThread().isInterrupted()) {
                throw new RpcException(RpcStatus.CANCELLED, "interrupted while waiting for a request slot");
            }
            idler.idle();
        }
        return slot;
    }

    /** Frees the request blocks and signals (not the queue). */
    @Override
    public void close() {
        if (runtime.isClosed()) {
            return;
        }
        for (Signal s : signals) {
            s.destroy();
        }
        runtime.free(blocks);
    }
}
