from iotui.cli import main

raise SystemExit(main())
