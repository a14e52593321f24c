package org.hsa4j.amp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.NativeKernel;
import org.hsa4j.agent.spi.QueueBackend;
import org.hsa4j.agent.spi.QueueFactory;
import org.hsa4j.kernel.KernargWriter;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueDescriptor;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.AgentProvider;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.runtime.spi.AgentFactory;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalDescriptor;
import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packets an accelerator view writes for a native kernel on a provided agent, read back from a
 * queue nobody serves (what hsa-cuda's PacketTranslation then turns into a CUDA launch): header,
 * dimensions, workgroup, grid (a partial last workgroup allowed), kernel object, the kernarg bytes
 * the writer put there, the future's completion signal, and a barrier-AND packet before it for a
 * dependency. The test completes the signals by hand, as an agent would.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeDispatchPacketTest {
    private HsaRuntime rt;
    private Amp amp;
    private Agent dev;

    /** A provided agent whose queues are the runtime's own queue structures, consumed by no one. */
    static final class Unserved implements AgentProvider, QueueBackend {
        private HsaRuntime runtime;
        private Agent agent;
        private int queues;

        @Override
        public String name() {
            return "unserved";
        }

        @Override
        public Found open(HsaRuntime runtime, int firstIndex) {
            this.runtime = runtime;
            agent = AgentFactory.provided(firstIndex, runtime.gpuAgent().properties(), runtime.memory(), runtime.signals(),
                    runtime.systemPool(), List.of(), runtime::timestamp, this);
            return new Found(List.of(agent), "one device");
        }

        @Override
        public Queue createQueue(int size, QueueType type, QueueErrorCallback errorCallback) {
            Allocation descriptor = runtime.memory().allocate(runtime.systemPool(), QueueDescriptor.BYTES,
                    QueueDescriptor.ALIGNMENT, MemoryKind.INTERNAL, -1L, 0, null);
            Allocation ring = runtime.memory().allocate(runtime.systemPool(), (long) size * AqlPacket.SIZE, 4096,
                    MemoryKind.INTERNAL, -1L, 0, null);
            Signal doorbell = runtime.signals().create(-1, SignalDescriptor.KIND_DOORBELL);
            queues++;
            return QueueFactory.create(agent, descriptor, ring, size, 1000 + queues, type, QueueDescriptor.FEATURE_KERNEL_DISPATCH,
                    doorbell, errorCallback, q -> {
                        QueueFactory.markDestroyed(q);
                        for (Allocation a : QueueFactory.allocations(q)) {
                            runtime.memory().release(a);
                        }
                        q.doorbell().destroy();
                        queues--;
                    }, q -> { });
        }

        @Override
        public int queueCount() {
            return queues;
        }

        @Override
        public void shutdown(HsaException reason, long timeoutNanos) {
        }
    }

    record Stand(long kernelObject, Agent agent, long kernargSegmentSize, String name) implements NativeKernel {
    }

    @BeforeEach
    void open() {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(1).computeUnits(1).build(), List.of(new Unserved()));
        amp = Amp.on(rt);
        dev = rt.providedAgents().get(0);
    }

    @AfterEach
    void close() {
        amp.close();
        rt.close();
    }

    @Test
    void aNativeDispatchIsOneKernelPacketWithTheKernelsObjectGridWorkgroupAndKernarg() {
        AcceleratorView v = amp.accelerator(dev).createView();
        CompletionFuture f = v.parallelForEach(new Stand(0xC0DA_0000_0000_0007L, dev, 12, "k"), new Extent(1000), 256,
                KernargWriter.slots(new long[] {0x7000_1234_5678L}, 1000));
        Queue q = v.queue();
        MemorySegment ring = q.ring();
        long off = q.slotOffset(0);
        int word = AqlPacket.loadHeaderWordAcquire(ring, off);
        assertEquals(PacketType.KERNEL_DISPATCH.code(), PacketHeader.typeCode(word));
        assertTrue(PacketHeader.barrier(word));
        assertEquals(FenceScope.SYSTEM.code(), PacketHeader.acquireScopeCode(word));
        assertEquals(FenceScope.SYSTEM.code(), PacketHeader.releaseScopeCode(word));
        assertEquals(1, KernelDispatchPacket.dimensions(word >>> 16));
        assertEquals(256, ring.get(JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_X));
        assertEquals(1, ring.get(JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_Y));
        assertEquals(1000, ring.get(JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_X));
        assertEquals(1, ring.get(JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_Y));
        assertEquals(0xC0DA_0000_0000_0007L, ring.get(JAVA_LONG, off + KernelDispatchPacket.KERNEL_OBJECT));
        long kernarg = ring.get(JAVA_LONG, off + KernelDispatchPacket.KERNARG_ADDRESS);
        assertEquals(0, kernarg % 16, "the kernarg segment is 16-byte aligned");
        MemorySegment k = rt.svm().segment(kernarg, 16);
        assertEquals(0x7000_1234_5678L, k.get(JAVA_LONG, 0));
        assertEquals(1000, k.get(JAVA_INT, 8));
        long completion = ring.get(JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
        assertFalse(f.isDone());
        rt.signal(completion).subtractScrelease(1);   // the agent ran it
        assertTrue(f.waitFor(10, TimeUnit.SECONDS));
        f.get();
    }

    @Test
    void aNativeDispatchAfterAFutureIsABarrierAndPacketNamingItThenTheDispatch() {
        AcceleratorView v = amp.accelerator(dev).createView();
        CompletionFuture first = v.parallelForEach(new Stand(1, dev, 16, "a"), new Extent(64), 64, k -> { });
        CompletionFuture second = v.parallelForEachAfter(first, new Stand(2, dev, 16, "b"), new Extent(8, 64), 64,
                k -> { });
        Queue q = v.queue();
        MemorySegment ring = q.ring();
        long firstSignal = ring.get(JAVA_LONG, q.slotOffset(0) + AqlPacket.COMPLETION_SIGNAL);
        long barrier = q.slotOffset(1);
        assertEquals(PacketType.BARRIER_AND.code(), PacketHeader.typeCode(AqlPacket.loadHeaderWordAcquire(ring, barrier)));
        assertEquals(firstSignal, ring.get(JAVA_LONG, barrier + BarrierPacket.DEP_SIGNAL0));
        long dispatch = q.slotOffset(2);
        int word = AqlPacket.loadHeaderWordAcquire(ring, dispatch);
        assertEquals(PacketType.KERNEL_DISPATCH.code(), PacketHeader.typeCode(word));
        assertEquals(2, KernelDispatchPacket.dimensions(word >>> 16));
        assertEquals(64, ring.get(JAVA_INT, dispatch + KernelDispatchPacket.GRID_SIZE_X));
        assertEquals(8, ring.get(JAVA_INT, dispatch + KernelDispatchPacket.GRID_SIZE_Y));
        rt.signal(firstSignal).subtractScrelease(1);
        rt.signal(ring.get(JAVA_LONG, dispatch + AqlPacket.COMPLETION_SIGNAL)).subtractScrelease(1);
        assertTrue(second.waitFor(10, TimeUnit.SECONDS));
        second.get();
    }
}
