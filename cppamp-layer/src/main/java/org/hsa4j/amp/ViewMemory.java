package org.hsa4j.amp;

import java.lang.foreign.MemorySegment;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.Svm;
import org.hsa4j.memory.SvmAccess;

/**
 * The memory under an {@link ArrayView}, resolved once when the view is made: the checked segment,
 * its SVM address and, the runtime's {@link SvmAccess} strategy and, in fidelity mode, the
 * {@link Allocation} its caches need for every element access (null when the mode is off);
 * {@code amp} is the layer whose kernels may write it ({@link ArrayView#synchronize()} waits for them);
 * {@code hostArray} is the Java array the memory is a copy of ({@link ArrayView#copyIn()},
 * {@link ArrayView#copyOut()}), or null.
 */
record ViewMemory(MemorySegment segment, long address, SvmAccess access, Allocation allocation, Amp amp,
                  Object hostArray) {
    /** {@code bytes} bytes at {@code address} as {@code svm}'s agent sees them, written by kernels of {@code amp}. */
    static ViewMemory of(Amp amp, Svm svm, long address, long bytes) {
        return of(amp, svm, address, bytes, null);
    }

    /** As {@link #of(Amp, Svm, long, long)}, the memory being a copy of {@code hostArray}. */
    static ViewMemory of(Amp amp, Svm svm, long address, long bytes, Object hostArray) {
        MemorySegment segment = svm.segment(address, bytes);
        SvmAccess access = svm.access();
        return new ViewMemory(segment, address, access, access.coherent() ? svm.resolve(address, bytes) : null, amp,
                hostArray);
    }
}
