package org.hsa4j.stress.litmus;

/**
 * The SVM slot layout every litmus test uses: locations x, y and z on separate cache lines, a
 * word for what a kernel observed, and a kernarg segment holding the slot's own address (for the
 * tests whose middle thread is a kernel).
 */
final class Litmus {
    /** Location x. */
    static final long X = 0;
    /** Location y. */
    static final long Y = 64;
    /** Location z. */
    static final long Z = 128;
    /** What the kernel in a three-party test observed (an int). */
    static final long KERNEL_SAW = 192;
    /** The kernarg segment: 8 bytes, the slot address. */
    static final long KERNARG = 200;
    /** Bytes per slot. */
    static final long SLOT_BYTES = 256;

    private Litmus() {
    }
}
