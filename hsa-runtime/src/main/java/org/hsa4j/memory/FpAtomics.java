package org.hsa4j.memory;

/**
 * How floating-point atomic adds ({@link Svm#atomicAddFloat}, {@link Svm#atomicAddDouble}, the
 * views' {@code fetchAdd}) behave, as chosen with ROCm's {@code -munsafe-fp-atomics}: the
 * hardware FP atomics of an MI250X are fast but are silently dropped on fine-grained memory.
 */
public enum FpAtomics {
    /** A compare-and-swap loop on the bits: correct on every kind of memory (the default). */
    CAS_LOOP,
    /** Hardware-style atomics: an add by a GPU compute unit on fine-grained memory is lost. */
    UNSAFE,
    /** Correct adds, but each one that UNSAFE would lose is reported to the runtime's diagnostics. */
    UNSAFE_DIAGNOSE
}
