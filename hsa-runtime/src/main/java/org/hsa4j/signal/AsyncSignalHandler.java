package org.hsa4j.signal;

/**
 * ROCR's {@code hsa_amd_signal_async_handler}: called off the caller's thread with the signal's
 * value once the condition holds; returning true re-arms it for the next change of the signal that
 * satisfies the condition (see {@link AsyncHandlerService}), false disarms it.
 */
@FunctionalInterface
public interface AsyncSignalHandler {
    /** Handles the value that satisfied the condition; true keeps the handler armed. */
    boolean onSignal(long value);
}
