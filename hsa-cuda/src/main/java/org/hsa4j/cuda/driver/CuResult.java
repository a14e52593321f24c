package org.hsa4j.cuda.driver;

import java.util.Map;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * {@code CUresult} codes of the CUDA driver API and their mapping to the closest {@link HsaStatus}
 * (part 5 of issue 18). Pure functions: no driver needed. The names are the header's; with a
 * driver loaded, {@link CudaDriver#errorName(int)} asks {@code cuGetErrorName} instead, so codes a
 * newer driver adds still get their real name.
 *
 * <p>Sticky errors ({@link #poisonsContext}) leave the CUDA context unusable: every later call in it
 * fails with the same code, so the agent must recreate it (ROCR's analogue is a queue that faulted).
 */
public final class CuResult {
    public static final int SUCCESS = 0;
    public static final int INVALID_VALUE = 1;
    public static final int OUT_OF_MEMORY = 2;
    public static final int NOT_INITIALIZED = 3;
    public static final int DEINITIALIZED = 4;
    public static final int STUB_LIBRARY = 34;
    public static final int DEVICE_UNAVAILABLE = 46;
    public static final int NO_DEVICE = 100;
    public static final int INVALID_DEVICE = 101;
    public static final int INVALID_IMAGE = 200;
    public static final int INVALID_CONTEXT = 201;
    public static final int NO_BINARY_FOR_GPU = 209;
    public static final int INVALID_PTX = 218;
    public static final int JIT_COMPILER_NOT_FOUND = 221;
    public static final int UNSUPPORTED_PTX_VERSION = 222;
    public static final int JIT_COMPILATION_DISABLED = 223;
    public static final int INVALID_SOURCE = 300;
    public static final int FILE_NOT_FOUND = 301;
    public static final int INVALID_HANDLE = 400;
    public static final int NOT_FOUND = 500;
    public static final int NOT_READY = 600;
    public static final int ILLEGAL_ADDRESS = 700;
    public static final int LAUNCH_OUT_OF_RESOURCES = 701;
    public static final int LAUNCH_TIMEOUT = 702;
    public static final int CONTEXT_IS_DESTROYED = 709;
    public static final int ASSERT = 710;
    public static final int HOST_MEMORY_ALREADY_REGISTERED = 712;
    public static final int HOST_MEMORY_NOT_REGISTERED = 713;
    public static final int HARDWARE_STACK_ERROR = 714;
    public static final int ILLEGAL_INSTRUCTION = 715;
    public static final int MISALIGNED_ADDRESS = 716;
    public static final int INVALID_ADDRESS_SPACE = 717;
    public static final int INVALID_PC = 718;
    public static final int LAUNCH_FAILED = 719;
    public static final int COOPERATIVE_LAUNCH_TOO_LARGE = 720;
    public static final int NOT_PERMITTED = 800;
    public static final int NOT_SUPPORTED = 801;
    public static final int UNKNOWN = 999;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(SUCCESS, "CUDA_SUCCESS"),
            Map.entry(INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"),
            Map.entry(OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"),
            Map.entry(NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"),
            Map.entry(DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED"),
            Map.entry(STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY"),
            Map.entry(DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE"),
            Map.entry(NO_DEVICE, "CUDA_ERROR_NO_DEVICE"),
            Map.entry(INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"),
            Map.entry(INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"),
            Map.entry(INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"),
            Map.entry(NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU"),
            Map.entry(INVALID_PTX, "CUDA_ERROR_INVALID_PTX"),
            Map.entry(JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"),
            Map.entry(UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"),
            Map.entry(JIT_COMPILATION_DISABLED, "CUDA_ERROR_JIT_COMPILATION_DISABLED"),
            Map.entry(INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE"),
            Map.entry(FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND"),
            Map.entry(INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"),
            Map.entry(NOT_FOUND, "CUDA_ERROR_NOT_FOUND"),
            Map.entry(NOT_READY, "CUDA_ERROR_NOT_READY"),
            Map.entry(ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"),
            Map.entry(LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            Map.entry(LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT"),
            Map.entry(CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED"),
            Map.entry(ASSERT, "CUDA_ERROR_ASSERT"),
            Map.entry(HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"),
            Map.entry(HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"),
            Map.entry(HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR"),
            Map.entry(ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION"),
            Map.entry(MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS"),
            Map.entry(INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE"),
            Map.entry(INVALID_PC, "CUDA_ERROR_INVALID_PC"),
            Map.entry(LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"),
            Map.entry(COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"),
            Map.entry(NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED"),
            Map.entry(NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"),
            Map.entry(UNKNOWN, "CUDA_ERROR_UNKNOWN"));

    private CuResult() {
    }

    /** The header's name of {@code code}, or {@code CUDA_ERROR_<code>} for one this table lacks. */
    public static String name(int code) {
        String n = NAMES.get(code);
        return n != null ? n : "CUDA_ERROR_" + code;
    }

    /** The closest HSA status to a CUDA result. */
    public static HsaStatus toStatus(int code) {
        return switch (code) {
            case SUCCESS -> HsaStatus.SUCCESS;
            case INVALID_VALUE, INVALID_HANDLE -> HsaStatus.INVALID_ARGUMENT;
            case OUT_OF_MEMORY, LAUNCH_OUT_OF_RESOURCES, COOPERATIVE_LAUNCH_TOO_LARGE -> HsaStatus.OUT_OF_RESOURCES;
            case NOT_INITIALIZED, DEINITIALIZED, STUB_LIBRARY -> HsaStatus.NOT_INITIALIZED;
            case NO_DEVICE, INVALID_DEVICE, DEVICE_UNAVAILABLE -> HsaStatus.INVALID_AGENT;
            case INVALID_IMAGE, NO_BINARY_FOR_GPU, INVALID_PTX, UNSUPPORTED_PTX_VERSION, JIT_COMPILER_NOT_FOUND,
                 JIT_COMPILATION_DISABLED, INVALID_SOURCE, FILE_NOT_FOUND -> HsaStatus.INVALID_CODE_OBJECT;
            case NOT_FOUND -> HsaStatus.INVALID_SYMBOL_NAME;
            case NOT_READY -> HsaStatus.RESOURCE_BUSY;
            case INVALID_CONTEXT, CONTEXT_IS_DESTROYED -> HsaStatus.INVALID_RUNTIME_STATE;
            case HOST_MEMORY_ALREADY_REGISTERED, HOST_MEMORY_NOT_REGISTERED -> HsaStatus.INVALID_ALLOCATION;
            case ILLEGAL_ADDRESS, MISALIGNED_ADDRESS, INVALID_ADDRESS_SPACE -> HsaStatus.MEMORY_FAULT;
            case ASSERT, HARDWARE_STACK_ERROR, ILLEGAL_INSTRUCTION, INVALID_PC, LAUNCH_FAILED, LAUNCH_TIMEOUT ->
                    HsaStatus.EXCEPTION;
            default -> HsaStatus.ERROR;
        };
    }

    /** True for the sticky errors after which the CUDA context must be recreated. */
    public static boolean poisonsContext(int code) {
        return switch (code) {
            case ILLEGAL_ADDRESS, LAUNCH_TIMEOUT, ASSERT, HARDWARE_STACK_ERROR, ILLEGAL_INSTRUCTION, MISALIGNED_ADDRESS,
                 INVALID_ADDRESS_SPACE, INVALID_PC, LAUNCH_FAILED -> true;
            default -> false;
        };
    }

    /** The exception for a failed call: its status from {@link #toStatus}, the CUDA name and code in the message. */
    public static HsaException exception(int code, String name, String call) {
        return new CudaCallException(toStatus(code), code, call + " failed: " + name + " (" + code + ")");
    }
}
