package org.hsa4j.kernel;

/**
 * Layout of a kernel object in SVM: the 64 bytes a kernel object handle points to (after the
 * spirit of {@code amd_kernel_code_t}). The handle is the SVM address of this block, so a packet
 * processor validates a handle with one address-space lookup.
 */
public final class KernelObjectDescriptor {
    /** u32 kernarg segment bytes. */
    public static final long KERNARG_SEGMENT_SIZE = 0;
    /** u32 static group segment bytes per workgroup. */
    public static final long GROUP_SEGMENT_SIZE = 4;
    /** u32 private segment bytes per work-item. */
    public static final long PRIVATE_SEGMENT_SIZE = 8;
    /** u32 flags: {@link #FLAG_BARRIERS}. */
    public static final long FLAGS = 12;
    /** u64 symbol id, unique in the runtime. */
    public static final long SYMBOL_ID = 16;
    /** Bytes 24..63 reserved. */
    public static final long RESERVED = 24;
    /** Size of a kernel object. */
    public static final long BYTES = 64;

    /** Flag: the kernel uses workgroup barriers. */
    public static final int FLAG_BARRIERS = 1;

    private KernelObjectDescriptor() {
    }
}
