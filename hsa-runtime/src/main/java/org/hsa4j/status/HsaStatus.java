package org.hsa4j.status;

/**
 * Status codes modelled on {@code hsa_status_t} of the HSA Runtime spec 1.2, plus the ROCR
 * extensions ({@code hsa_amd_*}) that hsa4j reports. The numeric code is the one the C API uses.
 */
public enum HsaStatus {
    /** The function has been executed successfully. */
    SUCCESS(0x0, "The function has been executed successfully."),
    /** A traversal over a list of elements has been interrupted by the application before completing. */
    INFO_BREAK(0x1, "A traversal over a list of elements has been interrupted by the application before completing."),
    /** A generic error has occurred. */
    ERROR(0x1000, "A generic error has occurred."),
    /** One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument. */
    INVALID_ARGUMENT(0x1001, "One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument."),
    /** The requested queue creation is not valid. */
    INVALID_QUEUE_CREATION(0x1002, "The requested queue creation is not valid."),
    /** The requested allocation is not valid. */
    INVALID_ALLOCATION(0x1003, "The requested allocation is not valid."),
    /** The agent is invalid. */
    INVALID_AGENT(0x1004, "The agent is invalid."),
    /** The memory region (or pool) is invalid. */
    INVALID_REGION(0x1005, "The memory region (or pool) is invalid."),
    /** The signal is invalid. */
    INVALID_SIGNAL(0x1006, "The signal is invalid."),
    /** The queue is invalid. */
    INVALID_QUEUE(0x1007, "The queue is invalid."),
    /** The runtime failed to allocate the necessary resources. */
    OUT_OF_RESOURCES(0x1008, "The runtime failed to allocate the necessary resources."),
    /** The AQL packet is malformed. */
    INVALID_PACKET_FORMAT(0x1009, "The AQL packet is malformed."),
    /** An error has been detected while releasing a resource. */
    RESOURCE_FREE(0x100A, "An error has been detected while releasing a resource."),
    /** An API other than init has been invoked while the runtime is not initialized. */
    NOT_INITIALIZED(0x100B, "An API other than init has been invoked while the runtime is not initialized."),
    /** The maximum reference count for the object has been reached. */
    REFCOUNT_OVERFLOW(0x100C, "The maximum reference count for the object has been reached."),
    /** The arguments passed to a function are not compatible. */
    INCOMPATIBLE_ARGUMENTS(0x100D, "The arguments passed to a function are not compatible."),
    /** The index is invalid. */
    INVALID_INDEX(0x100E, "The index is invalid."),
    /** The instruction set architecture is invalid. */
    INVALID_ISA(0x100F, "The instruction set architecture is invalid."),
    /** The code object is invalid. */
    INVALID_CODE_OBJECT(0x1010, "The code object is invalid."),
    /** The executable is invalid. */
    INVALID_EXECUTABLE(0x1011, "The executable is invalid."),
    /** The executable is frozen. */
    FROZEN_EXECUTABLE(0x1012, "The executable is frozen."),
    /** There is no symbol with the given name. */
    INVALID_SYMBOL_NAME(0x1013, "There is no symbol with the given name."),
    /** The variable (or kernel) is already defined. */
    VARIABLE_ALREADY_DEFINED(0x1014, "The variable (or kernel) is already defined."),
    /** The variable is undefined. */
    VARIABLE_UNDEFINED(0x1015, "The variable is undefined."),
    /** An HSAIL operation resulted in a hardware exception; here: a kernel threw, or was aborted. */
    EXCEPTION(0x1016, "An HSAIL operation resulted in a hardware exception; here: a kernel threw, or was aborted."),
    /** The instruction set architecture name is invalid. */
    INVALID_ISA_NAME(0x1017, "The instruction set architecture name is invalid."),
    /** The code object symbol is invalid. */
    INVALID_CODE_SYMBOL(0x1018, "The code object symbol is invalid."),
    /** The executable symbol is invalid. */
    INVALID_EXECUTABLE_SYMBOL(0x1019, "The executable symbol is invalid."),
    /** The file descriptor is invalid. */
    INVALID_FILE(0x1020, "The file descriptor is invalid."),
    /** The code object reader is invalid. */
    INVALID_CODE_OBJECT_READER(0x1021, "The code object reader is invalid."),
    /** The cache is invalid. */
    INVALID_CACHE(0x1022, "The cache is invalid."),
    /** The wavefront is invalid. */
    INVALID_WAVEFRONT(0x1023, "The wavefront is invalid."),
    /** The signal group is invalid. */
    INVALID_SIGNAL_GROUP(0x1024, "The signal group is invalid."),
    /** The operation is not valid in the runtime's current state. */
    INVALID_RUNTIME_STATE(0x1025, "The operation is not valid in the runtime's current state."),
    /** The runtime encountered a fatal error and cannot continue. */
    FATAL(0x1026, "The runtime encountered a fatal error and cannot continue."),
    /** ROCR: the memory pool is invalid. */
    INVALID_MEMORY_POOL(0x28, "ROCR: the memory pool is invalid."),
    /** ROCR: an agent accessed memory it has no access to. */
    MEMORY_APERTURE_VIOLATION(0x29, "ROCR: an agent accessed memory it has no access to."),
    /** ROCR: an access to an address outside any live allocation. */
    MEMORY_FAULT(0x2B, "ROCR: an access to an address outside any live allocation."),
    /** ROCR: the resource is busy. */
    RESOURCE_BUSY(0x2E, "ROCR: the resource is busy.");

    private final int code;
    private final String description;

    HsaStatus(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The numeric value of the C enumerator. */
    public int code() {
        return code;
    }

    /** True for every status that reports a failure. */
    public boolean isError() {
        return this != SUCCESS && this != INFO_BREAK;
    }

    /** The C enumerator's name, such as {@code HSA_STATUS_ERROR_INVALID_ARGUMENT}. */
    public String cName() {
        return isError() ? "HSA_STATUS_ERROR_" + name() : "HSA_STATUS_" + name();
    }

    /** What the status means, in one sentence. */
    public String description() {
        return description;
    }

    /** {@code hsa_status_string}: the C enumerator's name and what it means. */
    public String string() {
        return cName() + ": " + description;
    }

    /**
     * The status whose numeric code is {@code code}.
     *
     * @throws HsaException INVALID_ARGUMENT when no status has that code
     */
    public static HsaStatus fromCode(int code) {
        for (HsaStatus s : VALUES) {
            if (s.code == code) {
                return s;
            }
        }
        throw new HsaException(INVALID_ARGUMENT, String.format("0x%x is not a status code", code));
    }

    /**
     * {@code hsa_status_string} by numeric code.
     *
     * @throws HsaException INVALID_ARGUMENT when no status has that code, as the C function returns
     */
    public static String statusString(int code) {
        return fromCode(code).string();
    }

    private static final HsaStatus[] VALUES = values();
}
