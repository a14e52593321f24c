package org.hsa4j.memory;

/**
 * Decides, for one floating-point atomic add, what the runtime's {@link FpAtomics} setting makes
 * of it. Only an add run by a GPU agent's compute unit on fine-grained memory is special: UNSAFE
 * loses it (as MI250X hardware FP atomics do), UNSAFE_DIAGNOSE performs it and reports it. Host
 * threads, the CPU agent's compute units and coarse-grained memory (including pages advised
 * coarse-grained) are never affected. The default CAS_LOOP setting has no policy object at all, so
 * it costs the add one null check.
 */
public final class FpAtomicPolicy {
    /** Index of the CPU agent, whose compute units are host threads to this policy. */
    static final int CPU_AGENT = 0;

    private final FpAtomics mode;
    private final AddressSpace space;
    private final FpAtomicDiagnostics diagnostics;

    /** The policy for {@code mode} over {@code space}; reports go to {@code diagnostics}. */
    public FpAtomicPolicy(FpAtomics mode, AddressSpace space, FpAtomicDiagnostics diagnostics) {
        this.mode = mode;
        this.space = space;
        this.diagnostics = diagnostics;
    }

    /** The setting this policy applies. */
    public FpAtomics mode() {
        return mode;
    }

    /**
     * True when the add at {@code address} in {@code a} must be lost; in diagnose mode an add that
     * would be lost is reported and false is returned.
     */
    boolean loses(Allocation a, long address) {
        ComputeUnitThread unit = ComputeUnitThread.current();
        if (mode == FpAtomics.CAS_LOOP || unit == null || unit.agentIndex() == CPU_AGENT || a == null
                || a.coarseGrainedAt(address)) {
            return false;
        }
        if (mode == FpAtomics.UNSAFE) {
            return true;
        }
        diagnostics.report(new FpAtomicReport(address, unit.agentIndex(), unit.computeUnit(), unit.kernelName()));
        return false;
    }

    /** {@link #loses(Allocation, long)} for a view's element: looks the allocation up. */
    boolean loses(long address) {
        return loses(space.lookup(address), address);
    }
}
