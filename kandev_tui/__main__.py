from kandev_tui.cli import main

raise SystemExit(main())
