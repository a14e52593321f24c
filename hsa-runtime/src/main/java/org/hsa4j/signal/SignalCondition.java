package org.hsa4j.signal;

/** Wait conditions of {@code hsa_signal_condition_t}: the signal value compared with a value. */
public enum SignalCondition {
    /** Value equals the compare value. */
    EQ,
    /** Value differs from the compare value. */
    NE,
    /** Value is less than the compare value. */
    LT,
    /** Value is greater than or equal to the compare value. */
    GTE;

    /** True when {@code value} satisfies this condition against {@code compare}. */
    public boolean test(long value, long compare) {
        return switch (this) {
            case EQ -> value == compare;
            case NE -> value != compare;
            case LT -> value < compare;
            case GTE -> value >= compare;
        };
    }
}
