package org.hsa4j.stress.mutant;

/** A step of a twin run did not happen within {@link Steps#PATIENCE_NANOS}: the rig is broken. */
public final class TwinTimeoutException extends RuntimeException {
    /** A timeout described by {@code message}. */
    public TwinTimeoutException(String message) {
        super(message);
    }
}
