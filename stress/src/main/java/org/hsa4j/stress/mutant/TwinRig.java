package org.hsa4j.stress.mutant;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.Svm;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * What a twin run needs: a runtime (fidelity mode on or off) with one GPU agent of two compute
 * units, a queue on it, memory of either grain, kernels, and a fresh step counter per run. Every
 * allocation is made once per twin and reset by the host before each run.
 */
public final class TwinRig implements AutoCloseable {
    /** Compute units of the GPU agent: two, so a twin can put two workgroups on two private caches. */
    static final int COMPUTE_UNITS = 2;

    private final HsaRuntime rt;
    private final Agent gpu;
    private final Queue queue;
    private final List<Long> allocations = new ArrayList<>();
    private final Signal stepCounter;

    private TwinRig(HsaRuntime rt) {
        this.rt = rt;
        this.gpu = rt.gpuAgent();
        this.queue = gpu.createQueue(64, QueueType.MULTI, null);
        this.stepCounter = rt.createSignal(0);
    }

    /** A rig on a new runtime, in fidelity mode when {@code fidelity}. */
    public static TwinRig start(boolean fidelity) {
        RuntimeConfig config = RuntimeConfig.builder().gpuAgents(1).computeUnits(COMPUTE_UNITS).cpuComputeUnits(1)
                .fidelity(fidelity).build();
        return new TwinRig(HsaRuntime.init(config));
    }

    /** True when the runtime runs in fidelity mode. */
    public boolean fidelity() {
        return rt.config().fidelity();
    }

    /** The host's view of SVM. */
    Svm host() {
        return rt.svm();
    }

    /** The runtime, for signals. */
    HsaRuntime runtime() {
        return rt;
    }

    /** A fresh step counter at 0 for one run. */
    Steps steps() {
        return new Steps(stepCounter);
    }

    /** {@code bytes} of fine-grained host memory (hipHostMalloc): coherent during kernels. */
    long fine(long bytes) {
        return keep(rt.hostMalloc(bytes));
    }

    /** {@code bytes} of the GPU's coarse-grained memory (hipMalloc), which the host may also access. */
    long coarse(long bytes) {
        long address = rt.deviceMalloc(gpu, bytes);
        rt.allowAccess(address, rt.cpuAgent(), gpu);
        return keep(address);
    }

    private long keep(long address) {
        allocations.add(address);
        return address;
    }

    /** Loads {@code body} as a kernel named {@code name}; returns its kernel object. */
    long kernel(String name, Kernel body) {
        return kernel(name, KernelDescriptor.EMPTY, body);
    }

    /** Loads {@code body} as a kernel named {@code name} with {@code descriptor}; returns its kernel object. */
    long kernel(String name, KernelDescriptor descriptor, Kernel body) {
        return rt.createExecutable().define(name, descriptor, body).freeze().symbol(name).kernelObject();
    }

    /**
     * Dispatches {@code kernelObject} as {@code workgroups} one-work-item workgroups, with the
     * packet's acquire and release fences at the given scopes; returns its completion signal.
     */
    DispatchCompletion dispatch(long kernelObject, int workgroups, FenceScope acquire, FenceScope release) {
        return queue.launch(kernelObject).grid(workgroups).workgroup(1).fences(acquire, release).dispatch();
    }

    /**
     * Dispatches {@code kernelObject} as one workgroup of {@code items} work-items with a group
     * segment of {@code groupBytes}, system-scope fences on both ends; returns its completion signal.
     */
    DispatchCompletion dispatchGroup(long kernelObject, int items, int groupBytes) {
        return queue.launch(kernelObject).grid(items).workgroup(items).groupSegment(groupBytes)
                .fences(FenceScope.SYSTEM, FenceScope.SYSTEM).dispatch();
    }

    /** Dispatches with system-scope fences on both ends, as a correct program does. */
    DispatchCompletion dispatch(long kernelObject, int workgroups) {
        return dispatch(kernelObject, workgroups, FenceScope.SYSTEM, FenceScope.SYSTEM);
    }

    /**
     * Publishes two one-work-item dispatches with system-scope fences into consecutive slots,
     * {@code first} then {@code second}, the second's header before the first's, so the packet
     * processor finds both published at once; the second has the barrier bit when {@code barrier}.
     */
    void dispatchPair(long first, Signal firstDone, long second, Signal secondDone, boolean barrier) {
        long id = queue.reserveSlots(2);
        publish(id + 1, second, secondDone, barrier);
        publish(id, first, firstDone, false);
        queue.ringDoorbell(id + 1);
    }

    private void publish(long id, long kernelObject, Signal done, boolean barrier) {
        KernelDispatchPacket p = queue.kernelDispatchPacket(id);
        p.clearBody();
        p.workgroupSize(1, 1, 1).gridSize(1, 1, 1).kernelObject(kernelObject).completionSignal(done.handle());
        p.publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, barrier, FenceScope.SYSTEM, FenceScope.SYSTEM), 1);
    }

    /** Waits (bounded, with scacquire) until {@code signal} is 0; a failed packet's signal throws. */
    void awaitZero(Signal signal) {
        long deadline = System.nanoTime() + Steps.PATIENCE_NANOS;
        while (signal.waitScacquire(SignalCondition.EQ, 0, 1_000_000L, WaitState.BLOCKED) != 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new TwinTimeoutException("a twin's dispatch did not complete in time");
            }
        }
    }

    /** Waits (bounded) for the dispatch to end; a failed kernel throws. */
    void await(DispatchCompletion done) {
        if (!done.join(Steps.PATIENCE_NANOS, TimeUnit.NANOSECONDS)) {
            throw new TwinTimeoutException("a twin's kernel did not complete in time");
        }
    }

    @Override
    public void close() {
        for (long a : allocations) {
            rt.free(a);
        }
        rt.close();
    }
}
