package org.hsa4j.memory;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * An access through an SVM address that is not inside a live allocation
 * ({@link HsaStatus#MEMORY_FAULT}) or that the accessing agent may not touch
 * ({@link HsaStatus#MEMORY_APERTURE_VIOLATION}). Carries the faulting address.
 */
public final class MemoryFaultException extends HsaException {
    private static final long serialVersionUID = 1L;

    private final long address;

    public MemoryFaultException(HsaStatus status, long address, String message) {
        super(status, String.format("address 0x%016x: %s", address, message));
        this.address = address;
    }

    /** The faulting SVM address. */
    public long address() {
        return address;
    }
}
