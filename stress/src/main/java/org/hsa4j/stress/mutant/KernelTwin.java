package org.hsa4j.stress.mutant;

import org.hsa4j.memory.ComputeUnitThread;

/**
 * Base of the twins whose parties are the host thread and a kernel: memory and kernels are made
 * once per rig ({@link #prepare}), and each run gets the form to play and a fresh step counter
 * before {@link #play} dispatches the kernel. Kernels read {@link #weakened} and {@link #steps};
 * both are written before the dispatch packet is published, so the launch makes them visible.
 */
abstract class KernelTwin implements ProtocolTwin {
    private final String name;
    private final String twinOf;
    private final String weakening;
    private final String forbidden;
    private TwinRig preparedFor;
    /** The form this run plays; kernels read it. */
    volatile boolean weakened;
    /** This run's step counter; kernels use it. */
    volatile Steps steps;

    KernelTwin(String name, String twinOf, String weakening, String forbidden) {
        this.name = name;
        this.twinOf = twinOf;
        this.weakening = weakening;
        this.forbidden = forbidden;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String twinOf() {
        return twinOf;
    }

    @Override
    public final String weakening() {
        return weakening;
    }

    @Override
    public final String forbidden() {
        return forbidden;
    }

    @Override
    public final Outcome runOnce(TwinRig rig, boolean weakened) {
        if (preparedFor != rig) {
            prepare(rig);
            preparedFor = rig;
        }
        this.weakened = weakened;
        this.steps = rig.steps();
        return play(rig);
    }

    /** Allocates this twin's memory and loads its kernel on {@code rig}. */
    abstract void prepare(TwinRig rig);

    /** Plays one run in the form {@link #weakened} names. */
    abstract Outcome play(TwinRig rig);

    /** The compute unit the calling kernel runs on. */
    static int computeUnit() {
        ComputeUnitThread t = ComputeUnitThread.current();
        if (t == null) {
            throw new IllegalStateException("a twin's kernel code ran on a host thread");
        }
        return t.computeUnit();
    }
}
