package org.hsa4j.kernel;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;

/** A runtime with one GPU queue for kernel tests: define a kernel, dispatch it, wait for it. */
final class KernelFixture implements AutoCloseable {
    final HsaRuntime rt;
    Queue queue;
    final List<HsaException> errors = new CopyOnWriteArrayList<>();

    KernelFixture(int computeUnits) {
        this(computeUnits, false);
    }

    /** A fixture whose runtime runs in fidelity mode when {@code fidelity}. */
    KernelFixture(int computeUnits, boolean fidelity) {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(computeUnits).fidelity(fidelity).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, (e, q) -> errors.add(e));
    }

    /** Replaces the fixture's queue (after an error put it out of use) with a new one. */
    void replaceQueue() {
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, (e, q) -> errors.add(e));
    }

    /** The kernel object of a new executable holding {@code kernel} as {@code name}. */
    long kernel(String name, KernelDescriptor descriptor, Kernel kernel) {
        return rt.createExecutable().define(name, descriptor, kernel).freeze().symbol(name).kernelObject();
    }

    /** A dispatch of {@code kernelObject} on the fixture's queue. */
    Submit.Kernel dispatch(long kernelObject) {
        return Submit.kernel(queue, kernelObject);
    }

    /** Submits {@code dispatch} with a fresh completion signal and waits for it; failures propagate. */
    void run(Submit.Kernel dispatch) {
        Signal done = rt.createSignal(1);
        dispatch.completion(done).submit();
        Await.completion(done);
    }

    @Override
    public void close() {
        rt.close();
    }
}
