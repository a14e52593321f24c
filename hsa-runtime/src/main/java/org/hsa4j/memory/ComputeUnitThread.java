package org.hsa4j.memory;

/**
 * The thread of one compute unit. A memory access learns where it runs from it (which agent,
 * which compute unit, which kernel) with one type check on the current thread and no thread-local
 * lookup; host threads are plain threads and get {@code null} from {@link #current()}.
 */
public final class ComputeUnitThread extends Thread {
    private final int agentIndex;
    private final int computeUnit;
    /** This unit's L1 in fidelity mode, or null (fidelity mode off, or a unit without caches). */
    final UnitCache cache;
    private String kernelName;

    /** A daemon thread running {@code body} as compute unit {@code computeUnit} of agent {@code agentIndex}. */
    public ComputeUnitThread(Runnable body, String name, int agentIndex, int computeUnit) {
        this(body, name, agentIndex, computeUnit, null);
    }

    /**
     * As {@link #ComputeUnitThread(Runnable, String, int, int)}, with the unit's L1 of fidelity
     * mode's {@code model} (null when fidelity mode is off).
     */
    public ComputeUnitThread(Runnable body, String name, int agentIndex, int computeUnit, CoherenceModel model) {
        super(body, name);
        this.agentIndex = agentIndex;
        this.computeUnit = computeUnit;
        this.cache = model == null ? null : model.unitCache(agentIndex, computeUnit);
        setDaemon(true);
    }

    /** The calling thread when it is a compute unit's, else null (a host thread). */
    public static ComputeUnitThread current() {
        return Thread.currentThread() instanceof ComputeUnitThread t ? t : null;
    }

    /** Index of the agent this compute unit belongs to. */
    public int agentIndex() {
        return agentIndex;
    }

    /** Index of this compute unit inside its agent. */
    public int computeUnit() {
        return computeUnit;
    }

    /** Name of the kernel whose workgroup this unit runs now (or ran last); null before the first. */
    public String kernelName() {
        return kernelName;
    }

    /** Records the kernel this unit starts running; only the unit's own thread calls it. */
    public void enterKernel(String name) {
        if (Thread.currentThread() != this) {
            throw new IllegalStateException("only " + getName() + " may record the kernel it runs");
        }
        kernelName = name;
    }
}
