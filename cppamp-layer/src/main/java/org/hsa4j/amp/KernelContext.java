package org.hsa4j.amp;

import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.ServiceCaller;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.Svm;

/**
 * What a C++AMP kernel sees of itself beyond its {@link Index}: its flat id in the extent, the
 * accelerator (and agent) it runs on, the agent's view of SVM, and the dispatch that carries it.
 * It is a {@link ServiceCaller}, so a {@link ContextKernel} reaches the host services (syscalls,
 * printf, host malloc/free, the device heap's new/delete) exactly as a raw kernel does with its
 * work-item: {@code syscalls.getpid(ctx)}. The layer itself knows nothing of the services.
 *
 * <p>One context serves a whole contiguous range of the extent on one compute unit: the layer's
 * loop moves it from index to index, so a kernel must not keep it past its call or hand it to
 * another thread. Making it costs one small object per range, not per index.
 */
public final class KernelContext implements ServiceCaller {
    private final Accelerator accelerator;
    private final Svm svm;
    private final long kernargAddress;
    private final long packetId;
    /** Row-major position of the current index in the extent; written by the layer's loop. */
    long position;

    KernelContext(Accelerator accelerator, WorkItem carrier) {
        this.accelerator = accelerator;
        this.svm = carrier.svm();
        this.kernargAddress = carrier.kernargAddress();
        this.packetId = carrier.packetId();
    }

    /** Flat (row-major) id of the current index in the extent: 0 to {@code extent.size() - 1}. */
    @Override
    public long flatGlobalId() {
        return position;
    }

    /** The accelerator running the kernel. */
    public Accelerator accelerator() {
        return accelerator;
    }

    /** The agent running the kernel. */
    public Agent agent() {
        return accelerator.agent();
    }

    /** The running agent's view of shared virtual memory. */
    @Override
    public Svm svm() {
        return svm;
    }

    /** SVM address of the dispatch's kernarg segment: names the parallelForEach's packet to services. */
    @Override
    public long kernargAddress() {
        return kernargAddress;
    }

    /** Id of the parallelForEach's packet in its view's queue. */
    @Override
    public long packetId() {
        return packetId;
    }

    @Override
    public String toString() {
        return "KernelContext[" + accelerator.description() + ", packet " + packetId + ", at " + position + "]";
    }
}
