package org.hsa4j.services.rpc;

import java.util.Arrays;
import java.util.Objects;

/**
 * Maps opcodes to services. Registration is rare and copies the table (copy-on-write); lookup,
 * on every call, is an open-addressing probe over an int array with no boxing and no lock.
 * Whole namespaces are claimed by one owner, so two services cannot silently share a namespace.
 */
public final class OpcodeRegistry {
    /** A registered service with the mode it runs in. */
    public record Entry(int opcode, RpcService service, ServiceMode mode, String name) {
    }

    private record Table(int[] keys, Entry[] entries, int size) {
    }

    private static final int EMPTY = -1;

    private volatile Table table = new Table(filled(16), new Entry[16], 0);
    private final String[] namespaceOwners = new String[Opcodes.NAMESPACE_LAST + 1];

    private static int[] filled(int n) {
        int[] keys = new int[n];
        Arrays.fill(keys, EMPTY);
        return keys;
    }

    /**
     * Claims {@code namespace} for {@code owner}; registering opcodes in it then needs the same
     * owner name. Claiming a namespace twice with different owners fails.
     */
    public synchronized void claimNamespace(int namespace, String owner) {
        Objects.requireNonNull(owner, "owner");
        if (namespace < 0 || namespace > Opcodes.NAMESPACE_LAST) {
            throw new IllegalArgumentException("namespace must be 0..65535, was " + namespace);
        }
        String had = namespaceOwners[namespace];
        if (had != null && !had.equals(owner)) {
            throw new IllegalStateException(String.format("namespace %04x already belongs to %s", namespace, had));
        }
        namespaceOwners[namespace] = owner;
    }

    /** Registers {@code service} for {@code opcode}; the opcode's namespace must be claimed by {@code owner}. */
    public synchronized void register(String owner, int opcode, ServiceMode mode, RpcService service) {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(mode, "mode");
        if (opcode == EMPTY) {
            throw new IllegalArgumentException("opcode ffff:ffff is reserved");
        }
        int ns = Opcodes.namespace(opcode);
        if (!owner.equals(namespaceOwners[ns])) {
            throw new IllegalStateException(String.format("opcode %s: namespace %04x is not claimed by %s (owner: %s)",
                    Opcodes.toString(opcode), ns, owner, namespaceOwners[ns]));
        }
        Table t = table;
        int capacity = t.keys.length;
        while ((t.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        int[] keys = filled(capacity);
        Entry[] entries = new Entry[capacity];
        int size = 0;
        for (int i = 0; i < t.keys.length; i++) {
            if (t.keys[i] != EMPTY && t.keys[i] != opcode) {
                size += insert(keys, entries, t.entries[i]);
            }
        }
        size += insert(keys, entries, new Entry(opcode, service, mode, owner));
        table = new Table(keys, entries, size);
    }

    /** Removes the service of {@code opcode}; later calls to it get {@link RpcStatus#UNKNOWN_OPCODE}. */
    public synchronized void unregister(int opcode) {
        Table t = table;
        int[] keys = filled(t.keys.length);
        Entry[] entries = new Entry[t.keys.length];
        int size = 0;
        for (int i = 0; i < t.keys.length; i++) {
            if (t.keys[i] != EMPTY && t.keys[i] != opcode) {
                size += insert(keys, entries, t.entries[i]);
            }
        }
        table = new Table(keys, entries, size);
    }

    private static int insert(int[] keys, Entry[] entries, Entry e) {
        int mask = keys.length - 1;
        int i = mix(e.opcode()) & mask;
        while (keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        keys[i] = e.opcode();
        entries[i] = e;
        return 1;
    }

    private static int mix(int h) {
        h *= 0x9E3779B1;
        return h ^ (h >>> 15);
    }

    /** The entry of {@code opcode}, or null when nothing serves it. */
    public Entry lookup(int opcode) {
        Table t = table;
        int[] keys = t.keys;
        int mask = keys.length - 1;
        int i = mix(opcode) & mask;
        while (true) {
            int k = keys[i];
            if (k == opcode) {
                return t.entries[i];
            }
            if (k == EMPTY) {
                return null;
            }
            i = (i + 1) & mask;
        }
    }
}
