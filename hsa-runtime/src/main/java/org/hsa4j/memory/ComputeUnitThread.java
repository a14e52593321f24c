package org.hsa4j.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.hsa4j.status.HsaException;

/**
 * The thread of one compute unit. A memory access learns where it runs from it (which agent,
 * which compute unit, which kernel) with one type check on the current thread and no thread-local
 * lookup; host threads are plain threads and get {@code null} from {@link #current()}.
 *
 * <h2>Aborts</h2>
 * A Java thread cannot be killed, so a kernel is aborted cooperatively: the runtime marks the
 * {@link Abortable} work aborted and counts it in {@link #beginAbortChecks()}; every abort point
 * (each SVM access, signal operation, workgroup barrier and work-item start) calls
 * {@link #checkAbort()}, which costs one opaque load of that count and a branch while nothing is
 * being aborted anywhere. While some abort is pending, an abort point also looks at the work its
 * own unit runs ({@link #enterWork}, a plain field only this thread touches) and throws its cause,
 * which unwinds the kernel. A kernel that loops without reaching an abort point cannot be stopped.
 *
 * <h2>Work-item threads</h2>
 * A barrier kernel's work-items may run on virtual threads that stand in for their unit one at a
 * time ({@link #runAsWorkItemOf}); {@link #current()} answers the unit for them too (a scoped-value
 * lookup, paid only on a virtual thread), so memory accesses, fences and abort points behave as
 * they do on the unit's own thread.
 */
public final class ComputeUnitThread extends Thread {
    private static final VarHandle ABORTS;

    static {
        try {
            ABORTS = MethodHandles.lookup().findStaticVarHandle(ComputeUnitThread.class, "abortsPending", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Works aborted and not yet finished, over all runtimes; read opaque by every abort point. */
    @SuppressWarnings("unused")
    private static volatile int abortsPending;

    /** The unit a work-item's virtual thread stands in for. */
    private static final ScopedValue<ComputeUnitThread> WORK_ITEM_OF = ScopedValue.newInstance();

    private final int agentIndex;
    private final int computeUnit;
    /** The runtime's access strategy: the unit's fences go to it. */
    final SvmAccess access;
    /** This unit's state in the strategy (fidelity mode: its L1), or null (normal mode, or a unit without caches). */
    final Object unitState;
    private String kernelName;
    /** The work whose kernel or handler this unit runs now, or null; only this thread reads and writes it. */
    private Abortable work;

    /** A daemon thread running {@code body} as compute unit {@code computeUnit} of agent {@code agentIndex}. */
    public ComputeUnitThread(Runnable body, String name, int agentIndex, int computeUnit) {
        this(body, name, agentIndex, computeUnit, SvmAccess.DIRECT);
    }

    /**
     * As {@link #ComputeUnitThread(Runnable, String, int, int)}, accessing memory through the
     * runtime's {@code access} strategy (fidelity mode's gives the unit its L1; null: {@link SvmAccess#DIRECT}).
     */
    public ComputeUnitThread(Runnable body, String name, int agentIndex, int computeUnit, SvmAccess access) {
        super(body, name);
        this.agentIndex = agentIndex;
        this.computeUnit = computeUnit;
        this.access = access == null ? SvmAccess.DIRECT : access;
        this.unitState = this.access.unitState(agentIndex, computeUnit);
        setDaemon(true);
    }

    /** The calling thread when it is a compute unit's (or a work-item thread standing in for one), else null (a host thread). */
    public static ComputeUnitThread current() {
        Thread t = Thread.currentThread();
        if (t instanceof ComputeUnitThread c) {
            return c;
        }
        return t.isVirtual() && WORK_ITEM_OF.isBound() ? WORK_ITEM_OF.get() : null;
    }

    /**
     * Runs {@code body} on the calling (virtual) thread as a work-item of {@code unit}: inside it
     * {@link #current()} answers {@code unit}. The caller guarantees that {@code unit} and its
     * work-item threads never run kernel code at the same time (they hand over through a volatile).
     */
    public static void runAsWorkItemOf(ComputeUnitThread unit, Runnable body) {
        ScopedValue.where(WORK_ITEM_OF, unit).run(body);
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

    /** Marks the calling unit as running {@code w}'s code: its abort points now throw {@code w}'s abort. */
    public void enterWork(Abortable w) {
        work = w;
    }

    /** The work this unit runs now (kernel or handler code), or null while it runs runtime code. */
    public Abortable currentWork() {
        return work;
    }

    /** Marks the calling unit as running runtime code again: abort points let it through. */
    public void exitWork() {
        work = null;
    }

    /** An abort was requested: abort points look at their unit's work until {@link #endAbortChecks()}. */
    public static void beginAbortChecks() {
        ABORTS.getAndAdd(1);
    }

    /** An aborted work finished (or was given up): one fewer abort to look for. */
    public static void endAbortChecks() {
        ABORTS.getAndAdd(-1);
    }

    /**
     * An abort point: throws when the work the calling compute unit runs has been aborted. One
     * opaque load and a branch while no abort is pending anywhere; host threads pass.
     *
     * @throws HsaException the abort's status
     */
    public static void checkAbort() {
        if ((int) ABORTS.getOpaque() != 0) {
            checkAbortSlow();
        }
    }

    private static void checkAbortSlow() {
        ComputeUnitThread t = current();
        if (t != null && t.work != null) {
            HsaException cause = t.work.abortCause();
            if (cause != null) {
                throw new HsaException(cause.status(), "aborted: " + cause.getMessage(), cause);
            }
        }
    }
}
