package org.hsa4j.memory;

/**
 * Told when the real-address SVM arena maps or unmaps a range, so that another agent can make it
 * reachable at the same address (a CUDA agent pins and maps it with {@code cuMemHostRegister}).
 * hsa-runtime knows nothing of who listens; see {@link MemoryManager#addRegistrar}.
 *
 * <p>Ranges are whole chunks or spans of chunks (MiBs, page-aligned), each reported once: every
 * range is {@link #mapped} before any byte of it is handed out, and {@link #unmapping} before its
 * pages go back to the kernel. Calls come under the arena's lock, one at a time.
 */
public interface SvmRegistrar {
    /**
     * The range {@code address .. address+bytes} is mapped read-write and about to be carved into
     * allocations. Throwing an HsaException refuses it: the allocation that needed it fails with that status.
     */
    void mapped(long address, long bytes);

    /**
     * The range is about to be unmapped, or this registrar is being removed: forget it. Must not
     * throw; whatever it throws is ignored.
     */
    void unmapping(long address, long bytes);
}
