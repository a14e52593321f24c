package org.hsa4j.runtime;

/**
 * What {@code hsa_system_get_info} reports.
 *
 * @param versionMajor       HSA runtime spec major version implemented
 * @param versionMinor       HSA runtime spec minor version implemented
 * @param timestamp          current system timestamp
 * @param timestampFrequency timestamp ticks per second
 * @param signalMaxWait      longest signal wait in timestamp ticks
 * @param machineModel       "LARGE": 64-bit addresses
 * @param endianness         "LITTLE"
 */
public record SystemInfo(int versionMajor, int versionMinor, long timestamp, long timestampFrequency,
                         long signalMaxWait, String machineModel, String endianness) {
}
