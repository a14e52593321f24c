package org.hsa4j.runtime;

/**
 * Status codes modelled on {@code hsa_status_t} of the HSA Runtime spec 1.2, plus the ROCR
 * extensions ({@code hsa_amd_*}) that hsa4j reports. The numeric code is the one the C API uses.
 */
public enum HsaStatus {
    /** The function has been executed successfully. */
    SUCCESS(0x0),
    /** A traversal over a list of elements has been interrupted by the application. */
    INFO_BREAK(0x1),
    /** A generic error has occurred. */
    ERROR(0x1000),
    /** One of the actual arguments does not meet a precondition stated in the documentation. */
    INVALID_ARGUMENT(0x1001),
    /** The requested queue creation is not valid. */
    INVALID_QUEUE_CREATION(0x1002),
    /** The requested allocation is not valid. */
    INVALID_ALLOCATION(0x1003),
    /** The agent is invalid. */
    INVALID_AGENT(0x1004),
    /** The memory region (or pool) is invalid. */
    INVALID_REGION(0x1005),
    /** The signal is invalid. */
    INVALID_SIGNAL(0x1006),
    /** The queue is invalid. */
    INVALID_QUEUE(0x1007),
    /** The runtime failed to allocate the necessary resources. */
    OUT_OF_RESOURCES(0x1008),
    /** The AQL packet is malformed. */
    INVALID_PACKET_FORMAT(0x1009),
    /** An error has been detected while releasing a resource. */
    RESOURCE_FREE(0x100A),
    /** An API other than init has been invoked while the runtime is not initialized. */
    NOT_INITIALIZED(0x100B),
    /** The maximum reference count for the object has been reached. */
    REFCOUNT_OVERFLOW(0x100C),
    /** The code object is invalid. */
    INVALID_CODE_OBJECT(0x1010),
    /** The executable is invalid. */
    INVALID_EXECUTABLE(0x1011),
    /** The executable is frozen. */
    FROZEN_EXECUTABLE(0x1012),
    /** There is no symbol with the given name. */
    INVALID_SYMBOL_NAME(0x1013),
    /** The variable (or kernel) is already defined. */
    VARIABLE_ALREADY_DEFINED(0x1014),
    /** An HSAIL operation resulted in a hardware exception; here: a kernel threw. */
    EXCEPTION(0x1016),
    /** The signal group is invalid. */
    INVALID_SIGNAL_GROUP(0x1024),
    /** The operation is not valid in the runtime's current state. */
    INVALID_RUNTIME_STATE(0x1025),
    /** ROCR: the memory pool is invalid. */
    INVALID_MEMORY_POOL(0x28),
    /** ROCR: an agent accessed memory it has no access to. */
    MEMORY_APERTURE_VIOLATION(0x29),
    /** ROCR: an access to an address outside any live allocation. */
    MEMORY_FAULT(0x2B),
    /** ROCR: the resource is busy. */
    RESOURCE_BUSY(0x2E);

    private final int code;

    HsaStatus(int code) {
        this.code = code;
    }

    /** The numeric value of the C enumerator. */
    public int code() {
        return code;
    }

    /** True for every status that reports a failure. */
    public boolean isError() {
        return code >= 0x1000 || this == INVALID_MEMORY_POOL || this == MEMORY_APERTURE_VIOLATION
                || this == MEMORY_FAULT || this == RESOURCE_BUSY;
    }
}
