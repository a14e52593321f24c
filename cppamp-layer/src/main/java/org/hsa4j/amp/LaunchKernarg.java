package org.hsa4j.amp;

/**
 * Layout of the kernarg segment of every dispatch the layer makes: which launch (closure) the
 * trampoline kernel object is to run. The Java closure itself never leaves the heap: the kernarg
 * names a slot of the view's launch table, and the generation guards against a stale slot.
 */
public final class LaunchKernarg {
    /** u32 id of the accelerator view whose launch table holds the launch. */
    public static final long VIEW_ID = 0;
    /** u32 slot in that table. */
    public static final long SLOT = 4;
    /** u64 generation the slot had when the packet was written. */
    public static final long GENERATION = 8;
    /** Size of the segment. */
    public static final int BYTES = 16;

    private LaunchKernarg() {
    }
}
