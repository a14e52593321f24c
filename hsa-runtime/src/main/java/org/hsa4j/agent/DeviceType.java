package org.hsa4j.agent;

/** Agent device types ({@code hsa_device_type_t}). */
public enum DeviceType {
    /** The host CPU: consumes agent dispatch packets. */
    CPU,
    /** A kernel agent whose compute units are worker threads. */
    GPU
}
