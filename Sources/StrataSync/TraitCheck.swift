#if !Sync
    #warning("StrataSync is empty: enable the package's Sync trait (.package(..., traits: [\"Sync\"]))")
#endif
