// B's GPU profile in the Compare dock: every node of the run by time, longest first, with its
// kernel (or the CPU fallback and why), precision, and what it moves and computes per second
// against the device's measured peaks. Filled from the outcome's runtime::AcceleratorProfile.
#pragma once

#include "runtime/AcceleratorProfile.h"

#include <QTreeWidget>

namespace portolan::views {

class GpuProfileView : public QTreeWidget {
    Q_OBJECT
public:
    explicit GpuProfileView(QWidget *parent = nullptr);
    /// Shows `profile` (nullptr: empties the view).
    void setProfile(const runtime::AcceleratorProfile *profile);
};

} // namespace portolan::views
