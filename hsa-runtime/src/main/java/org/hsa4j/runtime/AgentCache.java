package org.hsa4j.runtime;

/**
 * A cache an agent's work-items see, as {@code hsa_agent_iterate_caches} and
 * {@code hsa_cache_get_info} report it.
 *
 * @param name  {@code HSA_CACHE_INFO_NAME}, e.g. "L1 Data"
 * @param level {@code HSA_CACHE_INFO_LEVEL}, 1 for the closest
 * @param bytes {@code HSA_CACHE_INFO_SIZE}
 */
public record AgentCache(String name, int level, long bytes) {
}
