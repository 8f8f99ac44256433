# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.
