package org.hsa4j.services.syscall;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Thrown in a work-item whose dispatch was aborted (by the abort syscall of any of its
 * work-items). Leaving the kernel with it fails the dispatch with {@link HsaStatus#EXCEPTION}: no
 * further workgroup starts and the completion signal's waiters see the failure.
 */
public final class DispatchAbortedException extends HsaException {
    private static final long serialVersionUID = 1L;

    private final long code;

    public DispatchAbortedException(long code, String message) {
        super(HsaStatus.EXCEPTION, message);
        this.code = code;
    }

    /** The code passed to abort (0 when the dispatch was already aborted by another work-item). */
    public long code() {
        return code;
    }
}
