package org.hsa4j.kernel;

import java.util.Objects;

/** Fidelity mode's {@link GroupMemory}: every access is checked against the unit's {@link GroupShadow} first. */
final class CheckedGroupMemory extends GroupMemory {
    private final GroupShadow shadow;

    CheckedGroupMemory(WorkItem item, GroupShadow shadow) {
        super(item);
        this.shadow = shadow;
    }

    @Override
    void beforeRead(long offset, int bytes) {
        checkRange(offset, bytes);
        shadow.read(item.flatLocalId(), shadow.stamp(item.groupPhase), offset, bytes);
    }

    @Override
    void beforeWrite(long offset, int bytes) {
        checkRange(offset, bytes);
        shadow.write(item.flatLocalId(), shadow.stamp(item.groupPhase), offset, bytes);
    }

    @Override
    void beforeAtomic(long offset, int bytes, int sync) {
        checkRange(offset, bytes);
        shadow.atomic(item.flatLocalId(), shadow.stamp(item.groupPhase), offset, bytes, sync);
    }

    private void checkRange(long offset, int bytes) {
        Objects.checkFromIndexSize(offset, bytes, item.groupSegment.byteSize());
    }
}
