"""Live capture and tuning with apache-tvm: model loading, the zoo, profiles, MetaSchedule.

The only layer that imports TVM, always lazily: commands that need no TVM never load it."""
