package org.hsa4j.runtime;

/** A failed runtime call or packet, carrying its {@link HsaStatus}. */
public class HsaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final HsaStatus status;

    public HsaException(HsaStatus status, String message) {
        super(status + ": " + message);
        this.status = status;
    }

    public HsaException(HsaStatus status, String message, Throwable cause) {
        super(status + ": " + message, cause);
        this.status = status;
    }

    /** The status code, as {@code hsa_status_t} would report it. */
    public HsaStatus status() {
        return status;
    }
}
