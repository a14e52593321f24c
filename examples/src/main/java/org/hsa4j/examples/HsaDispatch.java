package org.hsa4j.examples;

import java.io.PrintStream;
import java.lang.foreign.ValueLayout;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.DeviceType;
import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.ExecutableSymbol;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.FloatView;
import org.hsa4j.memory.Svm;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;

/**
 * The raw HSA flow, as the spec writes it: find a GPU agent, create a queue and a signal, write
 * a kernel dispatch packet field by field, publish its header with one release store, ring the
 * doorbell, and wait on the completion signal. The kernel adds two vectors that live in SVM.
 */
public final class HsaDispatch implements Example {
    /** Kernarg layout of vector_add: three SVM pointers. */
    static final long ARG_A = 0;
    static final long ARG_B = 8;
    static final long ARG_C = 16;
    static final int KERNARG_SIZE = 24;

    @Override
    public String name() {
        return "hsa_dispatch";
    }

    @Override
    public String description() {
        return "the raw HSA spec flow: queue, signal, a dispatch packet written field by field, doorbell, wait";
    }

    static void vectorAdd(WorkItem wi) {
        Svm svm = wi.svm();
        long a = wi.kernarg().get(ValueLayout.JAVA_LONG, ARG_A);
        long b = wi.kernarg().get(ValueLayout.JAVA_LONG, ARG_B);
        long c = wi.kernarg().get(ValueLayout.JAVA_LONG, ARG_C);
        long offset = 4 * wi.globalId(0);
        svm.setFloat(c + offset, svm.getFloat(a + offset) + svm.getFloat(b + offset));
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int n = small ? 4096 : 1 << 20;
        try (HsaRuntime rt = HsaRuntime.init()) {
            Agent gpu = rt.agents().stream().filter(a -> a.deviceType() == DeviceType.GPU).findFirst()
                    .orElseThrow(() -> new AssertionError("no GPU agent"));
            Queue queue = gpu.createQueue(256, QueueType.SINGLE, (error, q) -> out.println("queue error: " + error));
            Signal done = rt.createSignal(1);
            Executable exe = rt.createExecutable()
                    .define("vector_add", KernelDescriptor.withKernarg(KERNARG_SIZE), HsaDispatch::vectorAdd)
                    .freeze();
            ExecutableSymbol kernel = exe.symbol("vector_add");

            long a = rt.hostMalloc(4L * n);
            long b = rt.hostMalloc(4L * n);
            long c = rt.hostMalloc(4L * n);
            FloatView av = rt.svm().floats(a, n);
            FloatView bv = rt.svm().floats(b, n);
            for (int i = 0; i < n; i++) {
                av.set(i, i);
                bv.set(i, n - i);
            }
            long kernarg = rt.kernargPool().allocate(KERNARG_SIZE);
            rt.svm().setAddress(kernarg + ARG_A, a);
            rt.svm().setAddress(kernarg + ARG_B, b);
            rt.svm().setAddress(kernarg + ARG_C, c);

            int rounds = small ? 6 : 20;
            int warmups = small ? 2 : 5;
            Timing.Figure dispatch = Timing.rounds(rounds, warmups, k -> {
                done.storeRelaxed(1);                         // re-arm the completion signal
                long index = queue.addWriteIndexScacqScrel(1);
                queue.waitForSpace(index);
                KernelDispatchPacket packet = queue.kernelDispatchPacket(index);
                packet.workgroupSize(256, 1, 1)
                        .gridSize(n, 1, 1)
                        .privateSegmentSize(0)
                        .groupSegmentSize(0)
                        .kernelObject(kernel.kernelObject())
                        .kernargAddress(kernarg)
                        .completionSignal(done.handle());
                packet.publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM), 1);
                queue.ringDoorbell(index);
                Bounded.await(done, "the vector add dispatch");
            });
            // baseline: the same vector add as one plain host loop over the same SVM memory
            FloatView hostA = rt.svm().floats(a, n);
            FloatView hostB = rt.svm().floats(b, n);
            FloatView hostC = rt.svm().floats(c, n);
            Timing.Figure loop = Timing.rounds(rounds, warmups, k -> {
                for (int i = 0; i < n; i++) {
                    hostC.set(i, hostA.get(i) + hostB.get(i));
                }
            });

            FloatView cv = rt.svm().floats(c, n);
            for (int i = 0; i < n; i++) {
                if (cv.get(i) != n) {
                    throw new AssertionError("c[" + i + "] = " + cv.get(i) + ", expected " + n);
                }
            }
            out.printf("hsa_dispatch: %d-element vector add dispatched on %s through the raw AQL protocol; "
                    + "all %d sums correct; read index now %d%n", n, gpu.name(), n, queue.loadReadIndexScacquire());
            out.printf("hsa_dispatch: dispatch + wait, steady state (median after %d warm-ups) %.3f ms (%d workgroups of 256"
                    + " on %d compute units); baseline: one host loop over the same memory %.3f ms; first dispatch %.3f ms%n",
                    warmups, dispatch.steadyMillis(), (n + 255) / 256, gpu.computeUnits(), loop.steadyMillis(),
                    dispatch.firstMillis());
        }
    }
}
