package org.hsa4j.stress.mutant;

/**
 * A protocol of the stress suite in two forms: as written, and weakened (a fence removed, a scope
 * narrowed, or data moved to coarse-grained memory). One run plays the protocol once, in a fixed
 * order of steps, and says whether the outcome the stress test forbids showed up.
 */
public interface ProtocolTwin {
    /** A short name for reports. */
    String name();

    /** The stress tests (class names, comma separated) whose protocol this twins. */
    String twinOf();

    /** What the weakened form changes. */
    String weakening();

    /** The outcome the stress test forbids, in words. */
    String forbidden();

    /**
     * Plays the protocol once on {@code rig}; {@code weakened} selects the weakened form. Returns
     * the observed outcome, which is forbidden when {@link Outcome#forbidden()} is true.
     *
     * @throws TwinTimeoutException when a step did not happen in time (a broken rig, not a result)
     */
    Outcome runOnce(TwinRig rig, boolean weakened);

    /** What one run saw: a description and whether the stress test forbids it. */
    record Outcome(String seen, boolean forbidden) {
        /** An outcome that is forbidden when {@code bad}. */
        static Outcome of(boolean bad, String seen) {
            return new Outcome(seen, bad);
        }
    }
}
