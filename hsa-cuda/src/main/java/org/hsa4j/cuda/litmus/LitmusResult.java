package org.hsa4j.cuda.litmus;

import java.util.SortedMap;

/**
 * What one run of a test on one placement observed.
 *
 * @param test      the test
 * @param placement where each role ran
 * @param stress    true when other SMs made memory traffic during the run
 * @param instances test instances run (rounds x instances per round)
 * @param outcomes  how often each outcome was seen
 * @param weak      how often the weak outcome was seen
 * @param nanos     wall time of the run
 */
record LitmusResult(LitmusTest test, Placement placement, boolean stress, long instances,
                    SortedMap<String, Long> outcomes, long weak, long nanos) {
    /** What the observation means for the model. */
    enum Verdict {
        /** The weak outcome was not seen, or seen where the model allows it. */
        OK,
        /** Seen where HSA forbids it but PTX allows it for the instructions used: HSA's order needs stronger PTX. */
        NEEDS_STRONGER_MAPPING,
        /** Seen where both HSA and PTX forbid it: a bug in the hardware, the harness or the model. */
        VIOLATION
    }

    /** The verdict. */
    Verdict verdict() {
        if (weak == 0 || test.allowed()) {
            return Verdict.OK;
        }
        return test.ptxAllows() ? Verdict.NEEDS_STRONGER_MAPPING : Verdict.VIOLATION;
    }
}
