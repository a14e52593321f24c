package org.hsa4j.kernel;

import org.hsa4j.memory.Svm;

/**
 * What a host service needs to know about the kernel code that calls it: the agent's view of SVM
 * (whose access rights the service uses on the call's buffers), the calling dispatch (its kernarg
 * address and packet id, which name it in the service's records and let an abort reach it) and the
 * caller's flat id in its grid (a spreading hint, e.g. for the device heap).
 *
 * <p>A raw kernel's {@link WorkItem} is one; a C++AMP kernel gets one as its kernel context
 * ({@code org.hsa4j.amp.KernelContext}). The services take this interface rather than either, so
 * they depend on neither programming model and the C++AMP layer does not depend on them. Like a
 * work-item, a caller is only valid inside the kernel call that received it.
 */
public interface ServiceCaller {
    /** The calling agent's view of shared virtual memory. */
    Svm svm();

    /** SVM address of the calling dispatch's kernarg segment (names the dispatch). */
    long kernargAddress();

    /** Id of the calling dispatch's packet in its queue. */
    long packetId();

    /** Flat absolute id of the caller in its grid. */
    long flatGlobalId();
}
