package org.hsa4j.queue;

/**
 * Layout of a queue's descriptor in SVM: {@code hsa_queue_t} in the first 40 bytes, then the write
 * and read indices on cache lines of their own (as ROCR's {@code amd_queue_t} keeps its dispatch
 * ids), because producers write one and the packet processor the other.
 */
public final class QueueDescriptor {
    /** u32 queue type ({@link QueueType#code()}). */
    public static final long TYPE = 0;
    /** u32 features: bit 0 kernel dispatch, bit 1 agent dispatch. */
    public static final long FEATURES = 4;
    /** u64 SVM address of the packet ring. */
    public static final long BASE_ADDRESS = 8;
    /** u64 handle of the doorbell signal. */
    public static final long DOORBELL_SIGNAL = 16;
    /** u32 number of packets in the ring, a power of two. */
    public static final long SIZE = 24;
    /** u32 reserved. */
    public static final long RESERVED1 = 28;
    /** u64 queue id, unique in the runtime. */
    public static final long ID = 32;
    /** u64 write index: next packet id a producer will reserve; alone on its cache line. */
    public static final long WRITE_INDEX = 64;
    /** u64 read index: next packet id the processor will consume; alone on its cache line. */
    public static final long READ_INDEX = 128;
    /** Bytes of the descriptor. */
    public static final long BYTES = 192;
    /** Alignment of the descriptor. */
    public static final long ALIGNMENT = 64;

    /** Feature bit: the queue accepts kernel dispatch packets. */
    public static final int FEATURE_KERNEL_DISPATCH = 1;
    /** Feature bit: the queue accepts agent dispatch packets. */
    public static final int FEATURE_AGENT_DISPATCH = 2;

    private QueueDescriptor() {
    }
}
