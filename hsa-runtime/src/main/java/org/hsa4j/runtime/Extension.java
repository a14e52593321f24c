package org.hsa4j.runtime;

/**
 * HSA extensions by their {@code hsa_extension_t} number, and which this runtime implements
 * ({@link HsaRuntime#systemExtensionSupported}).
 */
public enum Extension {
    /** The finalizer: source or HSAIL to ISA at run time. Java kernels need none; the CUDA agent's NVRTC is its own API. */
    FINALIZER(0, 0),
    /** Images and samplers. */
    IMAGES(1, 0),
    /** Hardware performance counters. */
    PERFORMANCE_COUNTERS(2, 0),
    /** Profiling events. */
    PROFILING_EVENTS(3, 0),
    /** AMD's profiler: dispatch begin and end times on completion signals ({@code Signal.startTimestamp/endTimestamp}). */
    AMD_PROFILER(0x200, 1),
    /** AMD's loader extension. */
    AMD_LOADER(0x201, 0),
    /** AMD's AQL profile extension. */
    AMD_AQLPROFILE(0x202, 0);

    private final int id;
    private final int supportedMajor;

    Extension(int id, int supportedMajor) {
        this.id = id;
        this.supportedMajor = supportedMajor;
    }

    /** The {@code hsa_extension_t} number. */
    public int id() {
        return id;
    }

    /** The major version implemented here, 0 when the extension is not implemented. */
    public int supportedMajor() {
        return supportedMajor;
    }

    /** The spec's name, {@code hsa_extension_get_name}. */
    public String specName() {
        return "HSA_EXTENSION_" + name();
    }
}
