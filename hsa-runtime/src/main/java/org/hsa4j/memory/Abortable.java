package org.hsa4j.memory;

import org.hsa4j.status.HsaException;

/** Work a compute unit runs that the runtime may abort: its abort points throw once this is non-null. */
public interface Abortable {
    /** Why the work was aborted, or null while it may run on (a volatile read). */
    HsaException abortCause();

    /** Handle of the packet's completion signal, or 0: a wait on it from inside the work could never end. */
    default long completionSignalHandle() {
        return 0;
    }
}
