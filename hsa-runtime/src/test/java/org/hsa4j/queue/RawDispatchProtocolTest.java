package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.ExecutableSymbol;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The spec's submission protocol, written out step by step through SVM addresses. */
class RawDispatchProtocolTest {

    /** c[i] = a[i] + b[i] over a grid of any rank; kernargs: a, b, c addresses and the row pitch. */
    static void vectorAdd(WorkItem wi) {
        Svm svm = wi.svm();
        long a = wi.kernarg().get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
        long b = wi.kernarg().get(java.lang.foreign.ValueLayout.JAVA_LONG, 8);
        long c = wi.kernarg().get(java.lang.foreign.ValueLayout.JAVA_LONG, 16);
        long i = wi.flatGlobalId();
        svm.setFloat(c + 4 * i, svm.getFloat(a + 4 * i) + svm.getFloat(b + 4 * i));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void shouldComputeVectorAddThroughTheRawDispatchProtocol(int dims) {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build())) {
            Agent gpu = rt.gpuAgent();
            Svm svm = rt.svm();
            int[] grid = dims == 1 ? new int[] {1000, 1, 1} : dims == 2 ? new int[] {40, 25, 1} : new int[] {10, 10, 10};
            int[] wg = dims == 1 ? new int[] {64, 1, 1} : dims == 2 ? new int[] {8, 8, 1} : new int[] {4, 4, 2};
            int n = grid[0] * grid[1] * grid[2];
            long a = rt.hostMalloc(4L * n);
            long b = rt.hostMalloc(4L * n);
            long c = rt.hostMalloc(4L * n);
            for (int i = 0; i < n; i++) {
                svm.setFloat(a + 4L * i, i);
                svm.setFloat(b + 4L * i, 2 * i);
            }
            Executable exe = rt.createExecutable()
                    .define("vector_add", KernelDescriptor.withKernarg(24), RawDispatchProtocolTest::vectorAdd).freeze();
            ExecutableSymbol sym = exe.symbol("vector_add");
            long kernarg = rt.kernargPool().allocate(24);
            svm.setLong(kernarg, a);
            svm.setLong(kernarg + 8, b);
            svm.setLong(kernarg + 16, c);
            Signal done = rt.createSignal(1);
            Queue q = gpu.createQueue(64, QueueType.SINGLE, null);

            long id = q.addWriteIndexScacqScrel(1);
            while (id - q.loadReadIndexScacquire() >= q.size()) {
                Thread.onSpinWait();
            }
            long packet = q.baseAddress() + (id % q.size()) * AqlPacket.SIZE;
            svm.setShort(packet + KernelDispatchPacket.WORKGROUP_SIZE_X, (short) wg[0]);
            svm.setShort(packet + KernelDispatchPacket.WORKGROUP_SIZE_Y, (short) wg[1]);
            svm.setShort(packet + KernelDispatchPacket.WORKGROUP_SIZE_Z, (short) wg[2]);
            svm.setInt(packet + KernelDispatchPacket.GRID_SIZE_X, grid[0]);
            svm.setInt(packet + KernelDispatchPacket.GRID_SIZE_Y, grid[1]);
            svm.setInt(packet + KernelDispatchPacket.GRID_SIZE_Z, grid[2]);
            svm.setInt(packet + KernelDispatchPacket.PRIVATE_SEGMENT_SIZE, 0);
            svm.setInt(packet + KernelDispatchPacket.GROUP_SEGMENT_SIZE, 0);
            svm.setLong(packet + KernelDispatchPacket.KERNEL_OBJECT, sym.kernelObject());
            svm.setLong(packet + KernelDispatchPacket.KERNARG_ADDRESS, kernarg);
            svm.setLong(packet + AqlPacket.COMPLETION_SIGNAL, done.handle());
            short header = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM);
            svm.atomicStoreInt(packet, PacketHeader.word(header, (short) dims), MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            q.doorbell().storeScrelease(id);

            while (done.waitScacquire(SignalCondition.EQ, 0, Long.MAX_VALUE, WaitState.BLOCKED) != 0) {
                Thread.onSpinWait();
            }
            for (int i = 0; i < n; i++) {
                assertEquals(3f * i, svm.getFloat(c + 4L * i), "element " + i);
            }
            assertEquals(id + 1, q.loadReadIndexScacquire());
            assertEquals(PacketType.INVALID.code(), svm.getShort(packet) & 0xFF);
        }
    }
}
