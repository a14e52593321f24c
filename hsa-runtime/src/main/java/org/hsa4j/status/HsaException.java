package org.hsa4j.status;

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

    /**
     * {@code value}, checked as the C API checks a pointer argument.
     *
     * @throws HsaException INVALID_ARGUMENT naming {@code name} when {@code value} is null
     */
    public static <T> T requireNonNull(T value, String name) {
        if (value == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, name + " must not be null");
        }
        return value;
    }

    /** The status code, as {@code hsa_status_t} would report it. */
    public HsaStatus status() {
        return status;
    }
}
