package org.hsa4j.kernel;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;

/** A helper class that {@link ReaderKernels} calls: the jar code object must carry it too. */
final class ReaderHelper {
    private ReaderHelper() {
    }

    static void add(WorkItem wi, long address, long delta) {
        wi.svm().atomicAddLong(address, delta, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
    }
}
