package org.hsa4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.Optional;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Every libcuda function hsa4j calls, bound once through {@link Linker#downcallHandle} (part 8 of
 * issue 18): no JNI, no native code of ours.
 *
 * <p><b>Versioned names.</b> The CUDA headers map many API names to versioned symbols
 * ({@code #define cuMemAlloc cuMemAlloc_v2}); a program linked against the header calls those,
 * and the old unversioned symbols keep their old ABI or fail ({@code cuMemHostGetDevicePointer}
 * returns CUDA_ERROR_INVALID_CONTEXT on driver 580). So each wrapper binds the symbol the CUDA 13
 * header maps its name to, and the Java method keeps the header's name.
 *
 * <p><b>Types.</b> Handles ({@code CUcontext}, {@code CUstream}, {@code CUmodule}, ...) and host
 * pointers are {@link MemorySegment}s, {@code CUdeviceptr} and {@code size_t} are {@code long},
 * {@code CUdevice} and enums are {@code int}. Every wrapper returns the raw {@code CUresult};
 * {@link #check} turns a failure into an {@link HsaException} whose status is
 * {@link CuResult#toStatus} and whose message carries {@code cuGetErrorName}'s name.
 *
 * <p><b>Optional entry points.</b> A few symbols are newer than some drivers (parameter info, the
 * JIT linker, stream memory operations); they bind to null when absent and their wrappers return
 * {@link #MISSING}, so an old driver still serves everything else.
 */
public final class CudaDriver {
    /** The driver library. */
    public static final String LIBRARY = "libcuda.so.1";
    /** What a wrapper of an optional entry point returns when the driver lacks it (CUDA_ERROR_NOT_SUPPORTED). */
    public static final int MISSING = CuResult.NOT_SUPPORTED;

    /** The outcome of loading the driver: the driver, or why there is none. */
    public record Load(CudaDriver driver, String reason) {
        /** True when the driver loaded. */
        public boolean available() {
            return driver != null;
        }
    }

    private final MethodHandle H_CUINIT;
    private final MethodHandle H_CUDRIVERGETVERSION;
    private final MethodHandle H_CUDEVICEGETCOUNT;
    private final MethodHandle H_CUDEVICEGET;
    private final MethodHandle H_CUDEVICEGETNAME;
    private final MethodHandle H_CUDEVICEGETUUID;
    private final MethodHandle H_CUDEVICETOTALMEM;
    private final MethodHandle H_CUDEVICEGETATTRIBUTE;
    private final MethodHandle H_CUDEVICEPRIMARYCTXRETAIN;
    private final MethodHandle H_CUDEVICEPRIMARYCTXRELEASE;
    private final MethodHandle H_CUDEVICEPRIMARYCTXRESET;
    private final MethodHandle H_CUCTXSETCURRENT;
    private final MethodHandle H_CUCTXSYNCHRONIZE;
    private final MethodHandle H_CUMEMGETINFO;
    private final MethodHandle H_CUMEMALLOC;
    private final MethodHandle H_CUMEMFREE;
    private final MethodHandle H_CUMEMHOSTALLOC;
    private final MethodHandle H_CUMEMFREEHOST;
    private final MethodHandle H_CUMEMHOSTGETDEVICEPOINTER;
    private final MethodHandle H_CUMEMHOSTREGISTER;
    private final MethodHandle H_CUMEMHOSTUNREGISTER;
    private final MethodHandle H_CUMEMALLOCMANAGED;
    private final MethodHandle H_CUMEMCPYHTOD;
    private final MethodHandle H_CUMEMCPYDTOH;
    private final MethodHandle H_CUMEMCPYDTOD;
    private final MethodHandle H_CUMEMSETD8;
    private final MethodHandle H_CUSTREAMCREATE;
    private final MethodHandle H_CUSTREAMDESTROY;
    private final MethodHandle H_CUSTREAMSYNCHRONIZE;
    private final MethodHandle H_CUEVENTCREATE;
    private final MethodHandle H_CUEVENTRECORD;
    private final MethodHandle H_CUEVENTQUERY;
    private final MethodHandle H_CUEVENTSYNCHRONIZE;
    private final MethodHandle H_CUEVENTDESTROY;
    private final MethodHandle H_CUMODULELOADDATAEX;
    private final MethodHandle H_CUMODULEUNLOAD;
    private final MethodHandle H_CUMODULEGETFUNCTION;
    private final MethodHandle H_CUFUNCGETATTRIBUTE;
    private final MethodHandle H_CUFUNCSETATTRIBUTE;
    private final MethodHandle H_CUFUNCGETPARAMINFO;
    private final MethodHandle H_CUMODULEGETFUNCTIONCOUNT;
    private final MethodHandle H_CUMODULEENUMERATEFUNCTIONS;
    private final MethodHandle H_CUFUNCGETNAME;
    private final MethodHandle H_CULAUNCHKERNEL;
    private final MethodHandle H_CULINKCREATE;
    private final MethodHandle H_CULINKADDDATA;
    private final MethodHandle H_CULINKCOMPLETE;
    private final MethodHandle H_CULINKDESTROY;
    private final MethodHandle H_CUSTREAMWAITVALUE64;
    private final MethodHandle H_CULAUNCHCOOPERATIVEKERNEL;
    private final MethodHandle H_CUOCCUPANCYMAXACTIVEBLOCKS;
    private final MethodHandle H_CUSTREAMQUERY;
    private final MethodHandle H_CUMEMSETD8ASYNC;
    private final MethodHandle H_CUSTREAMWRITEVALUE64;
    private final MethodHandle H_CUGETERRORNAME;
    private final MethodHandle H_CUMEMPREFETCHASYNC;
    private final MethodHandle H_CUMEMADVISE;

    /** {@code CUmemLocation}: {@code {CUmemLocationType type; int id;}}, passed by value. */
    public static final java.lang.foreign.StructLayout CU_MEM_LOCATION = java.lang.foreign.MemoryLayout.structLayout(
            JAVA_INT.withName("type"), JAVA_INT.withName("id"));
    /** {@code CU_MEM_LOCATION_TYPE_DEVICE}: the id is a device ordinal. */
    public static final int CU_MEM_LOCATION_TYPE_DEVICE = 0x1;
    /** {@code CU_MEM_LOCATION_TYPE_HOST}: the id is ignored. */
    public static final int CU_MEM_LOCATION_TYPE_HOST = 0x2;

    private CudaDriver(SymbolLookup lookup) {
        H_CUINIT = bind(lookup, "cuInit", false, JAVA_INT, JAVA_INT);
        H_CUDRIVERGETVERSION = bind(lookup, "cuDriverGetVersion", false, JAVA_INT, ADDRESS);
        H_CUDEVICEGETCOUNT = bind(lookup, "cuDeviceGetCount", false, JAVA_INT, ADDRESS);
        H_CUDEVICEGET = bind(lookup, "cuDeviceGet", false, JAVA_INT, ADDRESS, JAVA_INT);
        H_CUDEVICEGETNAME = bind(lookup, "cuDeviceGetName", false, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
        H_CUDEVICEGETUUID = bind(lookup, "cuDeviceGetUuid_v2", false, JAVA_INT, ADDRESS, JAVA_INT);
        H_CUDEVICETOTALMEM = bind(lookup, "cuDeviceTotalMem_v2", false, JAVA_INT, ADDRESS, JAVA_INT);
        H_CUDEVICEGETATTRIBUTE = bind(lookup, "cuDeviceGetAttribute", false, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
        H_CUDEVICEPRIMARYCTXRETAIN = bind(lookup, "cuDevicePrimaryCtxRetain", false, JAVA_INT, ADDRESS, JAVA_INT);
        H_CUDEVICEPRIMARYCTXRELEASE = bind(lookup, "cuDevicePrimaryCtxRelease_v2", false, JAVA_INT, JAVA_INT);
        H_CUDEVICEPRIMARYCTXRESET = bind(lookup, "cuDevicePrimaryCtxReset_v2", false, JAVA_INT, JAVA_INT);
        H_CUCTXSETCURRENT = bind(lookup, "cuCtxSetCurrent", false, JAVA_INT, ADDRESS);
        H_CUCTXSYNCHRONIZE = bind(lookup, "cuCtxSynchronize", false, JAVA_INT);
        H_CUMEMGETINFO = bind(lookup, "cuMemGetInfo_v2", false, JAVA_INT, ADDRESS, ADDRESS);
        H_CUMEMALLOC = bind(lookup, "cuMemAlloc_v2", false, JAVA_INT, ADDRESS, JAVA_LONG);
        H_CUMEMFREE = bind(lookup, "cuMemFree_v2", false, JAVA_INT, JAVA_LONG);
        H_CUMEMHOSTALLOC = bind(lookup, "cuMemHostAlloc", false, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
        H_CUMEMFREEHOST = bind(lookup, "cuMemFreeHost", false, JAVA_INT, ADDRESS);
        H_CUMEMHOSTGETDEVICEPOINTER = bind(lookup, "cuMemHostGetDevicePointer_v2", false, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        H_CUMEMHOSTREGISTER = bind(lookup, "cuMemHostRegister_v2", false, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
        H_CUMEMHOSTUNREGISTER = bind(lookup, "cuMemHostUnregister", false, JAVA_INT, ADDRESS);
        H_CUMEMALLOCMANAGED = bind(lookup, "cuMemAllocManaged", false, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
        H_CUMEMCPYHTOD = bind(lookup, "cuMemcpyHtoD_v2", false, JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG);
        H_CUMEMCPYDTOH = bind(lookup, "cuMemcpyDtoH_v2", false, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG);
        H_CUMEMCPYDTOD = bind(lookup, "cuMemcpyDtoD_v2", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG);
        H_CUMEMSETD8 = bind(lookup, "cuMemsetD8_v2", false, JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG);
        H_CUSTREAMCREATE = bind(lookup, "cuStreamCreate", false, JAVA_INT, ADDRESS, JAVA_INT);
        H_CUSTREAMDESTROY = bind(lookup, "cuStreamDestroy_v2", false, JAVA_INT, ADDRESS);
        H_CUSTREAMSYNCHRONIZE = bind(lookup, "cuStreamSynchronize", false, JAVA_INT, ADDRESS);
        H_CUEVENTCREATE = bind(lookup, "cuEventCreate", false, JAVA_INT, ADDRESS, JAVA_INT);
        H_CUEVENTRECORD = bind(lookup, "cuEventRecord", false, JAVA_INT, ADDRESS, ADDRESS);
        H_CUEVENTQUERY = bind(lookup, "cuEventQuery", false, JAVA_INT, ADDRESS);
        H_CUEVENTSYNCHRONIZE = bind(lookup, "cuEventSynchronize", false, JAVA_INT, ADDRESS);
        H_CUEVENTDESTROY = bind(lookup, "cuEventDestroy_v2", false, JAVA_INT, ADDRESS);
        H_CUMODULELOADDATAEX = bind(lookup, "cuModuleLoadDataEx", false, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
        H_CUMODULEUNLOAD = bind(lookup, "cuModuleUnload", false, JAVA_INT, ADDRESS);
        H_CUMODULEGETFUNCTION = bind(lookup, "cuModuleGetFunction", false, JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        H_CUFUNCGETATTRIBUTE = bind(lookup, "cuFuncGetAttribute", false, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);
        H_CUFUNCSETATTRIBUTE = bind(lookup, "cuFuncSetAttribute", false, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
        H_CUFUNCGETPARAMINFO = bind(lookup, "cuFuncGetParamInfo", true, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS);
        // listing a cubin's or fat binary's kernels (CUDA 12.3/12.4): optional
        H_CUMODULEGETFUNCTIONCOUNT = bind(lookup, "cuModuleGetFunctionCount", true, JAVA_INT, ADDRESS, ADDRESS);
        H_CUMODULEENUMERATEFUNCTIONS = bind(lookup, "cuModuleEnumerateFunctions", true, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);
        H_CUFUNCGETNAME = bind(lookup, "cuFuncGetName", true, JAVA_INT, ADDRESS, ADDRESS);
        H_CULAUNCHKERNEL = bind(lookup, "cuLaunchKernel", false, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        H_CULINKCREATE = bind(lookup, "cuLinkCreate_v2", true, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        H_CULINKADDDATA = bind(lookup, "cuLinkAddData_v2", true, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
        H_CULINKCOMPLETE = bind(lookup, "cuLinkComplete", true, JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        H_CULINKDESTROY = bind(lookup, "cuLinkDestroy", true, JAVA_INT, ADDRESS);
        H_CUSTREAMWAITVALUE64 = bind(lookup, "cuStreamWaitValue64_v2", true, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT);
        // the GPU-resident packet processor (issue 19): optional, so discovery works without them
        H_CULAUNCHCOOPERATIVEKERNEL = bind(lookup, "cuLaunchCooperativeKernel", true, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
        H_CUOCCUPANCYMAXACTIVEBLOCKS = bind(lookup, "cuOccupancyMaxActiveBlocksPerMultiprocessor", true, JAVA_INT, ADDRESS,
                ADDRESS, JAVA_INT, JAVA_LONG);
        H_CUSTREAMQUERY = bind(lookup, "cuStreamQuery", true, JAVA_INT, ADDRESS);
        H_CUMEMSETD8ASYNC = bind(lookup, "cuMemsetD8Async", true, JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, ADDRESS);
        H_CUSTREAMWRITEVALUE64 = bind(lookup, "cuStreamWriteValue64_v2", true, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT);
        H_CUGETERRORNAME = bind(lookup, "cuGetErrorName", false, JAVA_INT, JAVA_INT, ADDRESS);
        // cuda.h (CUDA 13): cuMemPrefetchAsync -> cuMemPrefetchAsync_v2, cuMemAdvise -> cuMemAdvise_v2,
        // both taking a CUmemLocation by value
        H_CUMEMPREFETCHASYNC = bind(lookup, "cuMemPrefetchAsync_v2", true, JAVA_INT, JAVA_LONG, JAVA_LONG,
                CU_MEM_LOCATION, JAVA_INT, ADDRESS);
        H_CUMEMADVISE = bind(lookup, "cuMemAdvise_v2", true, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, CU_MEM_LOCATION);
    }

    /** Loads {@link #LIBRARY}: never throws; a missing library or symbol is a {@link Load#reason}. */
    public static Load load() {
        return load(LIBRARY);
    }

    /** Loads the driver from {@code library} (a name the dynamic linker resolves, or a path). */
    public static Load load(String library) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return new Load(null, library + " cannot be loaded (" + e.getMessage() + ")");
        }
        try {
            return new Load(new CudaDriver(lookup), null);
        } catch (IllegalStateException e) {
            return new Load(null, library + " lacks " + e.getMessage());
        }
    }

    private static MethodHandle bind(SymbolLookup lookup, String symbol, boolean optional, MemoryLayout... layouts) {
        Optional<MemorySegment> address = lookup.find(symbol);
        if (address.isEmpty()) {
            if (optional) {
                return null;
            }
            throw new IllegalStateException("the entry point " + symbol);
        }
        FunctionDescriptor d = FunctionDescriptor.of(layouts[0], Arrays.copyOfRange(layouts, 1, layouts.length));
        return Linker.nativeLinker().downcallHandle(address.get(), d);
    }

    private static HsaException unexpected(String symbol, Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return new HsaException(HsaStatus.ERROR, "call of " + symbol + " threw " + t, t);
    }

    /** True when the driver has the optional entry point {@code cuFuncGetParamInfo}. */
    public boolean hasParamInfo() {
        return H_CUFUNCGETPARAMINFO != null;
    }

    /** True when the driver can list a module's kernels ({@code cuModuleGetFunctionCount}, {@code cuModuleEnumerateFunctions}, {@code cuFuncGetName}). */
    public boolean hasFunctionEnumeration() {
        return H_CUMODULEGETFUNCTIONCOUNT != null && H_CUMODULEENUMERATEFUNCTIONS != null && H_CUFUNCGETNAME != null;
    }

    /** {@code cuGetErrorName}'s name of {@code result}, or the header's from {@link CuResult#name}. */
    public String errorName(int result) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            if (cuGetErrorName(result, p) == CuResult.SUCCESS && !p.get(ADDRESS, 0).equals(MemorySegment.NULL)) {
                return p.get(ADDRESS, 0).reinterpret(256).getString(0);
            }
        }
        return CuResult.name(result);
    }

    /** Throws the mapped {@link HsaException} when {@code result} is not CUDA_SUCCESS. */
    public void check(int result, String call) {
        if (result != CuResult.SUCCESS) {
            throw CuResult.exception(result, errorName(result), call);
        }
    }

    /** {@code cuInit}: Initializes the driver API. */
    public int cuInit(int flags) {
        try {
            return (int) H_CUINIT.invokeExact(flags);
        } catch (Throwable t) {
            throw unexpected("cuInit", t);
        }
    }

    /** {@code cuDriverGetVersion}: The driver's CUDA version (e.g. 13000) into {@code version}. */
    public int cuDriverGetVersion(MemorySegment version) {
        try {
            return (int) H_CUDRIVERGETVERSION.invokeExact(version);
        } catch (Throwable t) {
            throw unexpected("cuDriverGetVersion", t);
        }
    }

    /** {@code cuDeviceGetCount}: Number of devices into {@code count}. */
    public int cuDeviceGetCount(MemorySegment count) {
        try {
            return (int) H_CUDEVICEGETCOUNT.invokeExact(count);
        } catch (Throwable t) {
            throw unexpected("cuDeviceGetCount", t);
        }
    }

    /** {@code cuDeviceGet}: The device of {@code ordinal}. */
    public int cuDeviceGet(MemorySegment device, int ordinal) {
        try {
            return (int) H_CUDEVICEGET.invokeExact(device, ordinal);
        } catch (Throwable t) {
            throw unexpected("cuDeviceGet", t);
        }
    }

    /** {@code cuDeviceGetName}: The device's name, NUL-terminated. */
    public int cuDeviceGetName(MemorySegment name, int length, int device) {
        try {
            return (int) H_CUDEVICEGETNAME.invokeExact(name, length, device);
        } catch (Throwable t) {
            throw unexpected("cuDeviceGetName", t);
        }
    }

    /** {@code cuDeviceGetUuid_v2}: The device's 16-byte UUID. */
    public int cuDeviceGetUuid(MemorySegment uuid, int device) {
        try {
            return (int) H_CUDEVICEGETUUID.invokeExact(uuid, device);
        } catch (Throwable t) {
            throw unexpected("cuDeviceGetUuid_v2", t);
        }
    }

    /** {@code cuDeviceTotalMem_v2}: The device's memory in bytes. */
    public int cuDeviceTotalMem(MemorySegment bytes, int device) {
        try {
            return (int) H_CUDEVICETOTALMEM.invokeExact(bytes, device);
        } catch (Throwable t) {
            throw unexpected("cuDeviceTotalMem_v2", t);
        }
    }

    /** {@code cuDeviceGetAttribute}: One {@code CUdevice_attribute}. */
    public int cuDeviceGetAttribute(MemorySegment value, int attribute, int device) {
        try {
            return (int) H_CUDEVICEGETATTRIBUTE.invokeExact(value, attribute, device);
        } catch (Throwable t) {
            throw unexpected("cuDeviceGetAttribute", t);
        }
    }

    /** {@code cuDevicePrimaryCtxRetain}: Retains the device's primary context. */
    public int cuDevicePrimaryCtxRetain(MemorySegment context, int device) {
        try {
            return (int) H_CUDEVICEPRIMARYCTXRETAIN.invokeExact(context, device);
        } catch (Throwable t) {
            throw unexpected("cuDevicePrimaryCtxRetain", t);
        }
    }

    /** {@code cuDevicePrimaryCtxRelease_v2}: Releases the primary context. */
    public int cuDevicePrimaryCtxRelease(int device) {
        try {
            return (int) H_CUDEVICEPRIMARYCTXRELEASE.invokeExact(device);
        } catch (Throwable t) {
            throw unexpected("cuDevicePrimaryCtxRelease_v2", t);
        }
    }

    /** {@code cuDevicePrimaryCtxReset_v2}: Destroys every allocation and state of the primary context: how a poisoned context is recreated. */
    public int cuDevicePrimaryCtxReset(int device) {
        try {
            return (int) H_CUDEVICEPRIMARYCTXRESET.invokeExact(device);
        } catch (Throwable t) {
            throw unexpected("cuDevicePrimaryCtxReset_v2", t);
        }
    }

    /** {@code cuCtxSetCurrent}: Binds {@code context} to the calling thread. */
    public int cuCtxSetCurrent(MemorySegment context) {
        try {
            return (int) H_CUCTXSETCURRENT.invokeExact(context);
        } catch (Throwable t) {
            throw unexpected("cuCtxSetCurrent", t);
        }
    }

    /** {@code cuCtxSynchronize}: Waits for all work of the current context. */
    public int cuCtxSynchronize() {
        try {
            return (int) H_CUCTXSYNCHRONIZE.invokeExact();
        } catch (Throwable t) {
            throw unexpected("cuCtxSynchronize", t);
        }
    }

    /** {@code cuMemGetInfo_v2}: Free and total device memory. */
    public int cuMemGetInfo(MemorySegment free, MemorySegment total) {
        try {
            return (int) H_CUMEMGETINFO.invokeExact(free, total);
        } catch (Throwable t) {
            throw unexpected("cuMemGetInfo_v2", t);
        }
    }

    /** {@code cuMemAlloc_v2}: Device-local memory. */
    public int cuMemAlloc(MemorySegment address, long bytes) {
        try {
            return (int) H_CUMEMALLOC.invokeExact(address, bytes);
        } catch (Throwable t) {
            throw unexpected("cuMemAlloc_v2", t);
        }
    }

    /** {@code cuMemFree_v2}: Frees device or managed memory. */
    public int cuMemFree(long address) {
        try {
            return (int) H_CUMEMFREE.invokeExact(address);
        } catch (Throwable t) {
            throw unexpected("cuMemFree_v2", t);
        }
    }

    /** {@code cuMemHostAlloc}: Pinned host memory. */
    public int cuMemHostAlloc(MemorySegment pointer, long bytes, int flags) {
        try {
            return (int) H_CUMEMHOSTALLOC.invokeExact(pointer, bytes, flags);
        } catch (Throwable t) {
            throw unexpected("cuMemHostAlloc", t);
        }
    }

    /** {@code cuMemFreeHost}: Frees pinned host memory. */
    public int cuMemFreeHost(MemorySegment pointer) {
        try {
            return (int) H_CUMEMFREEHOST.invokeExact(pointer);
        } catch (Throwable t) {
            throw unexpected("cuMemFreeHost", t);
        }
    }

    /** {@code cuMemHostGetDevicePointer_v2}: The device address of mapped host memory (the unversioned symbol fails with INVALID_CONTEXT). */
    public int cuMemHostGetDevicePointer(MemorySegment address, MemorySegment host, int flags) {
        try {
            return (int) H_CUMEMHOSTGETDEVICEPOINTER.invokeExact(address, host, flags);
        } catch (Throwable t) {
            throw unexpected("cuMemHostGetDevicePointer_v2", t);
        }
    }

    /** {@code cuMemHostRegister_v2}: Pins and maps existing host memory. */
    public int cuMemHostRegister(MemorySegment host, long bytes, int flags) {
        try {
            return (int) H_CUMEMHOSTREGISTER.invokeExact(host, bytes, flags);
        } catch (Throwable t) {
            throw unexpected("cuMemHostRegister_v2", t);
        }
    }

    /** {@code cuMemHostUnregister}: Undoes {@link #cuMemHostRegister}. */
    public int cuMemHostUnregister(MemorySegment host) {
        try {
            return (int) H_CUMEMHOSTUNREGISTER.invokeExact(host);
        } catch (Throwable t) {
            throw unexpected("cuMemHostUnregister", t);
        }
    }

    /** {@code cuMemAllocManaged}: Managed (migrating) memory. */
    public int cuMemAllocManaged(MemorySegment address, long bytes, int flags) {
        try {
            return (int) H_CUMEMALLOCMANAGED.invokeExact(address, bytes, flags);
        } catch (Throwable t) {
            throw unexpected("cuMemAllocManaged", t);
        }
    }

    /** {@code cuMemcpyHtoD_v2}: Synchronous host-to-device copy. */
    public int cuMemcpyHtoD(long device, MemorySegment host, long bytes) {
        try {
            return (int) H_CUMEMCPYHTOD.invokeExact(device, host, bytes);
        } catch (Throwable t) {
            throw unexpected("cuMemcpyHtoD_v2", t);
        }
    }

    /** {@code cuMemcpyDtoH_v2}: Synchronous device-to-host copy. */
    public int cuMemcpyDtoH(MemorySegment host, long device, long bytes) {
        try {
            return (int) H_CUMEMCPYDTOH.invokeExact(host, device, bytes);
        } catch (Throwable t) {
            throw unexpected("cuMemcpyDtoH_v2", t);
        }
    }

    /** {@code cuMemcpyDtoD_v2}: Synchronous device-to-device copy. */
    public int cuMemcpyDtoD(long dst, long src, long bytes) {
        try {
            return (int) H_CUMEMCPYDTOD.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw unexpected("cuMemcpyDtoD_v2", t);
        }
    }

    /** {@code cuMemsetD8_v2}: Fills device memory with a byte. */
    public int cuMemsetD8(long device, byte value, long count) {
        try {
            return (int) H_CUMEMSETD8.invokeExact(device, value, count);
        } catch (Throwable t) {
            throw unexpected("cuMemsetD8_v2", t);
        }
    }

    /** {@code cuStreamCreate}: A stream. */
    public int cuStreamCreate(MemorySegment stream, int flags) {
        try {
            return (int) H_CUSTREAMCREATE.invokeExact(stream, flags);
        } catch (Throwable t) {
            throw unexpected("cuStreamCreate", t);
        }
    }

    /** {@code cuStreamDestroy_v2}: Destroys a stream. */
    public int cuStreamDestroy(MemorySegment stream) {
        try {
            return (int) H_CUSTREAMDESTROY.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("cuStreamDestroy_v2", t);
        }
    }

    /** {@code cuStreamSynchronize}: Waits for a stream's work. */
    public int cuStreamSynchronize(MemorySegment stream) {
        try {
            return (int) H_CUSTREAMSYNCHRONIZE.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("cuStreamSynchronize", t);
        }
    }

    /** {@code cuEventCreate}: An event. */
    public int cuEventCreate(MemorySegment event, int flags) {
        try {
            return (int) H_CUEVENTCREATE.invokeExact(event, flags);
        } catch (Throwable t) {
            throw unexpected("cuEventCreate", t);
        }
    }

    /** {@code cuEventRecord}: Records an event at the stream's current end. */
    public int cuEventRecord(MemorySegment event, MemorySegment stream) {
        try {
            return (int) H_CUEVENTRECORD.invokeExact(event, stream);
        } catch (Throwable t) {
            throw unexpected("cuEventRecord", t);
        }
    }

    /** {@code cuEventQuery}: SUCCESS once the event's work is done, NOT_READY before. */
    public int cuEventQuery(MemorySegment event) {
        try {
            return (int) H_CUEVENTQUERY.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("cuEventQuery", t);
        }
    }

    /** {@code cuEventSynchronize}: Waits for an event. */
    public int cuEventSynchronize(MemorySegment event) {
        try {
            return (int) H_CUEVENTSYNCHRONIZE.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("cuEventSynchronize", t);
        }
    }

    /** {@code cuEventDestroy_v2}: Destroys an event. */
    public int cuEventDestroy(MemorySegment event) {
        try {
            return (int) H_CUEVENTDESTROY.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("cuEventDestroy_v2", t);
        }
    }

    /** {@code cuModuleLoadDataEx}: Loads PTX, cubin or fatbin with JIT options. */
    public int cuModuleLoadDataEx(MemorySegment module, MemorySegment image, int options, MemorySegment optionKeys, MemorySegment optionValues) {
        try {
            return (int) H_CUMODULELOADDATAEX.invokeExact(module, image, options, optionKeys, optionValues);
        } catch (Throwable t) {
            throw unexpected("cuModuleLoadDataEx", t);
        }
    }

    /** {@code cuModuleUnload}: Unloads a module. */
    public int cuModuleUnload(MemorySegment module) {
        try {
            return (int) H_CUMODULEUNLOAD.invokeExact(module);
        } catch (Throwable t) {
            throw unexpected("cuModuleUnload", t);
        }
    }

    /** {@code cuModuleGetFunction}: A kernel of a module by symbol. */
    public int cuModuleGetFunction(MemorySegment function, MemorySegment module, MemorySegment name) {
        try {
            return (int) H_CUMODULEGETFUNCTION.invokeExact(function, module, name);
        } catch (Throwable t) {
            throw unexpected("cuModuleGetFunction", t);
        }
    }

    /** {@code cuFuncGetAttribute}: One {@code CUfunction_attribute}. */
    public int cuFuncGetAttribute(MemorySegment value, int attribute, MemorySegment function) {
        try {
            return (int) H_CUFUNCGETATTRIBUTE.invokeExact(value, attribute, function);
        } catch (Throwable t) {
            throw unexpected("cuFuncGetAttribute", t);
        }
    }

    /** {@code cuFuncSetAttribute}: sets one {@code CUfunction_attribute} (the opt-in to more dynamic shared memory). */
    public int cuFuncSetAttribute(MemorySegment function, int attribute, int value) {
        try {
            return (int) H_CUFUNCSETATTRIBUTE.invokeExact(function, attribute, value);
        } catch (Throwable t) {
            throw unexpected("cuFuncSetAttribute", t);
        }
    }

    /** {@code cuFuncGetParamInfo}: Offset and size of parameter {@code index} (CUDA 12.4+). */
    public int cuFuncGetParamInfo(MemorySegment function, long index, MemorySegment offset, MemorySegment size) {
        if (H_CUFUNCGETPARAMINFO == null) {
            return MISSING;
        }
        try {
            return (int) H_CUFUNCGETPARAMINFO.invokeExact(function, index, offset, size);
        } catch (Throwable t) {
            throw unexpected("cuFuncGetParamInfo", t);
        }
    }

    /** {@code cuModuleGetFunctionCount}: Number of kernels in a module (CUDA 12.4+). */
    public int cuModuleGetFunctionCount(MemorySegment count, MemorySegment module) {
        if (H_CUMODULEGETFUNCTIONCOUNT == null) {
            return MISSING;
        }
        try {
            return (int) H_CUMODULEGETFUNCTIONCOUNT.invokeExact(count, module);
        } catch (Throwable t) {
            throw unexpected("cuModuleGetFunctionCount", t);
        }
    }

    /** {@code cuModuleEnumerateFunctions}: Up to {@code numFunctions} kernel handles of a module (CUDA 12.4+). */
    public int cuModuleEnumerateFunctions(MemorySegment functions, int numFunctions, MemorySegment module) {
        if (H_CUMODULEENUMERATEFUNCTIONS == null) {
            return MISSING;
        }
        try {
            return (int) H_CUMODULEENUMERATEFUNCTIONS.invokeExact(functions, numFunctions, module);
        } catch (Throwable t) {
            throw unexpected("cuModuleEnumerateFunctions", t);
        }
    }

    /** {@code cuFuncGetName}: The symbol name of a kernel (CUDA 12.3+). */
    public int cuFuncGetName(MemorySegment name, MemorySegment function) {
        if (H_CUFUNCGETNAME == null) {
            return MISSING;
        }
        try {
            return (int) H_CUFUNCGETNAME.invokeExact(name, function);
        } catch (Throwable t) {
            throw unexpected("cuFuncGetName", t);
        }
    }

    /** {@code cuLaunchKernel}: Launches a kernel. */
    public int cuLaunchKernel(MemorySegment function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ, int sharedBytes, MemorySegment stream, MemorySegment params, MemorySegment extra) {
        try {
            return (int) H_CULAUNCHKERNEL.invokeExact(function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes, stream, params, extra);
        } catch (Throwable t) {
            throw unexpected("cuLaunchKernel", t);
        }
    }

    /** {@code cuLinkCreate_v2}: A JIT link. */
    public int cuLinkCreate(int options, MemorySegment optionKeys, MemorySegment optionValues, MemorySegment state) {
        if (H_CULINKCREATE == null) {
            return MISSING;
        }
        try {
            return (int) H_CULINKCREATE.invokeExact(options, optionKeys, optionValues, state);
        } catch (Throwable t) {
            throw unexpected("cuLinkCreate_v2", t);
        }
    }

    /** {@code cuLinkAddData_v2}: Adds an input to a JIT link. */
    public int cuLinkAddData(MemorySegment state, int type, MemorySegment data, long bytes, MemorySegment name, int options, MemorySegment optionKeys, MemorySegment optionValues) {
        if (H_CULINKADDDATA == null) {
            return MISSING;
        }
        try {
            return (int) H_CULINKADDDATA.invokeExact(state, type, data, bytes, name, options, optionKeys, optionValues);
        } catch (Throwable t) {
            throw unexpected("cuLinkAddData_v2", t);
        }
    }

    /** {@code cuLinkComplete}: Completes a JIT link. */
    public int cuLinkComplete(MemorySegment state, MemorySegment cubin, MemorySegment bytes) {
        if (H_CULINKCOMPLETE == null) {
            return MISSING;
        }
        try {
            return (int) H_CULINKCOMPLETE.invokeExact(state, cubin, bytes);
        } catch (Throwable t) {
            throw unexpected("cuLinkComplete", t);
        }
    }

    /** {@code cuLinkDestroy}: Destroys a JIT link. */
    public int cuLinkDestroy(MemorySegment state) {
        if (H_CULINKDESTROY == null) {
            return MISSING;
        }
        try {
            return (int) H_CULINKDESTROY.invokeExact(state);
        } catch (Throwable t) {
            throw unexpected("cuLinkDestroy", t);
        }
    }

    /** {@code cuLaunchCooperativeKernel}: launches a grid whose blocks are all co-resident ({@code kernelParams}: a pointer per parameter). */
    public int cuLaunchCooperativeKernel(MemorySegment function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
                                         int sharedBytes, MemorySegment stream, MemorySegment kernelParams) {
        if (H_CULAUNCHCOOPERATIVEKERNEL == null) {
            return MISSING;
        }
        try {
            return (int) H_CULAUNCHCOOPERATIVEKERNEL.invokeExact(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                    sharedBytes, stream, kernelParams);
        } catch (Throwable t) {
            throw unexpected("cuLaunchCooperativeKernel", t);
        }
    }

    /** {@code cuOccupancyMaxActiveBlocksPerMultiprocessor}: how many blocks of {@code blockSize} threads fit on one SM. */
    public int cuOccupancyMaxActiveBlocksPerMultiprocessor(MemorySegment blocks, MemorySegment function, int blockSize,
                                                           long dynamicShared) {
        if (H_CUOCCUPANCYMAXACTIVEBLOCKS == null) {
            return MISSING;
        }
        try {
            return (int) H_CUOCCUPANCYMAXACTIVEBLOCKS.invokeExact(blocks, function, blockSize, dynamicShared);
        } catch (Throwable t) {
            throw unexpected("cuOccupancyMaxActiveBlocksPerMultiprocessor", t);
        }
    }

    /** {@code cuMemsetD8Async}: sets {@code count} bytes of device memory to {@code value}, in {@code stream}'s order. */
    public int cuMemsetD8Async(long device, byte value, long count, MemorySegment stream) {
        if (H_CUMEMSETD8ASYNC == null) {
            return MISSING;
        }
        try {
            return (int) H_CUMEMSETD8ASYNC.invokeExact(device, value, count, stream);
        } catch (Throwable t) {
            throw unexpected("cuMemsetD8Async", t);
        }
    }

    /** {@code cuStreamQuery}: SUCCESS when everything on {@code stream} finished, NOT_READY while it runs, else the error. */
    public int cuStreamQuery(MemorySegment stream) {
        if (H_CUSTREAMQUERY == null) {
            return MISSING;
        }
        try {
            return (int) H_CUSTREAMQUERY.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("cuStreamQuery", t);
        }
    }

    /** {@code cuStreamWaitValue64_v2}: Stream memory operation: waits on a 64-bit value. */
    public int cuStreamWaitValue64(MemorySegment stream, long address, long value, int flags) {
        if (H_CUSTREAMWAITVALUE64 == null) {
            return MISSING;
        }
        try {
            return (int) H_CUSTREAMWAITVALUE64.invokeExact(stream, address, value, flags);
        } catch (Throwable t) {
            throw unexpected("cuStreamWaitValue64_v2", t);
        }
    }

    /** {@code cuStreamWriteValue64_v2}: Stream memory operation: writes a 64-bit value. */
    public int cuStreamWriteValue64(MemorySegment stream, long address, long value, int flags) {
        if (H_CUSTREAMWRITEVALUE64 == null) {
            return MISSING;
        }
        try {
            return (int) H_CUSTREAMWRITEVALUE64.invokeExact(stream, address, value, flags);
        } catch (Throwable t) {
            throw unexpected("cuStreamWriteValue64_v2", t);
        }
    }

    /** {@code cuMemPrefetchAsync_v2}: Prefetches managed memory to {@code location} (a {@link #CU_MEM_LOCATION}) on {@code stream}. */
    public int cuMemPrefetchAsync(long address, long bytes, MemorySegment location, int flags, MemorySegment stream) {
        if (H_CUMEMPREFETCHASYNC == null) {
            return MISSING;
        }
        try {
            return (int) H_CUMEMPREFETCHASYNC.invokeExact(address, bytes, location, flags, stream);
        } catch (Throwable t) {
            throw unexpected("cuMemPrefetchAsync_v2", t);
        }
    }

    /** {@code cuMemAdvise_v2}: Advises the driver about the use of managed memory; {@code location} is a {@link #CU_MEM_LOCATION}. */
    public int cuMemAdvise(long address, long bytes, int advice, MemorySegment location) {
        if (H_CUMEMADVISE == null) {
            return MISSING;
        }
        try {
            return (int) H_CUMEMADVISE.invokeExact(address, bytes, advice, location);
        } catch (Throwable t) {
            throw unexpected("cuMemAdvise_v2", t);
        }
    }

    /** {@code cuGetErrorName}: The static name string of a result. */
    public int cuGetErrorName(int result, MemorySegment name) {
        try {
            return (int) H_CUGETERRORNAME.invokeExact(result, name);
        } catch (Throwable t) {
            throw unexpected("cuGetErrorName", t);
        }
    }
}
