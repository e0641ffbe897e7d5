from reader.cli import main

raise SystemExit(main())
