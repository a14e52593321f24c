package org.hsa4j.kernel;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * What a kernel needs from a dispatch, as a code object's kernel descriptor records it: kernarg
 * bytes, static group segment bytes per workgroup, private bytes per work-item, and whether the
 * kernel uses workgroup barriers.
 *
 * @param kernargSegmentSize bytes of kernel arguments the packet's kernarg address must cover
 * @param groupSegmentSize   static group segment bytes the packet must provide at least
 * @param privateSegmentSize private bytes per work-item the packet must provide at least
 * @param barriers           true when work-items call {@link WorkgroupBarrier#await()}
 */
public record KernelDescriptor(int kernargSegmentSize, int groupSegmentSize, int privateSegmentSize,
                               boolean barriers) {
    /** A kernel with no arguments, no segments and no barriers. */
    public static final KernelDescriptor EMPTY = new KernelDescriptor(0, 0, 0, false);

    public KernelDescriptor {
        if (kernargSegmentSize < 0 || groupSegmentSize < 0 || privateSegmentSize < 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "segment sizes must not be negative");
        }
    }

    /** A descriptor with {@code bytes} of kernel arguments. */
    public static KernelDescriptor withKernarg(int bytes) {
        return new KernelDescriptor(bytes, 0, 0, false);
    }

    /** This descriptor with {@code bytes} of kernel arguments. */
    public KernelDescriptor kernarg(int bytes) {
        return new KernelDescriptor(bytes, groupSegmentSize, privateSegmentSize, barriers);
    }

    /** This descriptor with {@code bytes} of static group segment. */
    public KernelDescriptor group(int bytes) {
        return new KernelDescriptor(kernargSegmentSize, bytes, privateSegmentSize, barriers);
    }

    /** This descriptor with {@code bytes} of private segment per work-item. */
    public KernelDescriptor privateSegment(int bytes) {
        return new KernelDescriptor(kernargSegmentSize, groupSegmentSize, bytes, barriers);
    }

    /** This descriptor with workgroup barriers. */
    public KernelDescriptor withBarriers() {
        return new KernelDescriptor(kernargSegmentSize, groupSegmentSize, privateSegmentSize, true);
    }
}
