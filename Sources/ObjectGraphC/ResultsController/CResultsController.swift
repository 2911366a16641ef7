import FoundationEssentials
import ObjectGraph

// og_results_controller_*: fetched results controllers (include/objectgraph.h).

/// The controller behind `h`, checked to be used on its context's thread.
private func controllerBox(_ h: OpaquePointer?) throws(ObjectGraphError) -> ResultsControllerBox {
    let box = try handles.get(h, ResultsControllerBox.self)
    try box.controller.managedObjectContext.checkThread()
    return box
}

private func section(_ box: ResultsControllerBox, _ index: Int) throws(ObjectGraphError) -> FetchedResultsSection {
    guard let sections = box.controller.sections else {
        throw .invalidArgument("the controller has no results yet: call og_results_controller_perform_fetch first")
    }
    guard index >= 0, index < sections.count else {
        throw .invalidArgument("section \(index) is out of range (there are \(sections.count))")
    }
    return sections[index]
}

@_cdecl("og_results_controller_new")
public func og_results_controller_new(_ c: OpaquePointer?, _ r: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let request = try fetchRequest(r)
        let keyPath = try key.map { (p) throws(ObjectGraphError) in try string(p, "the section key path") }
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: x, sectionNameKeyPath: keyPath)
        return handles.make(ResultsControllerBox(controller, contextHandle: c!))
    }
}

@_cdecl("og_results_controller_set_callbacks")
public func og_results_controller_set_callbacks(_ h: OpaquePointer?, _ callbacks: UnsafeRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try controllerBox(h)
        guard let callbacks else {
            box.delegate = nil
            return OG_OK
        }
        let version = callbacks.load(as: Int32.self)
        guard version == 1 else {
            throw .invalidArgument("the callback table has version \(version); this library knows version 1 (OG_RESULTS_CONTROLLER_CALLBACKS_VERSION)")
        }
        let delegate = CResultsDelegate(callbacks.load(as: CResultsControllerCallbacks.self), handle: h!, contextHandle: box.contextHandle)
        box.delegate = delegate
        box.controller.delegate = delegate
        return OG_OK
    }
}

@_cdecl("og_results_controller_perform_fetch")
public func og_results_controller_perform_fetch(_ h: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try controllerBox(h).controller.performFetch()
        return OG_OK
    }
}

@_cdecl("og_results_controller_fetched_objects")
public func og_results_controller_fetched_objects(_ h: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    do throws(ObjectGraphError) {
        let box = try controllerBox(h)
        guard let objects = box.controller.fetchedObjects else { return nil }
        return handles.make(ResultsBox(objects, contextHandle: box.contextHandle))
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_results_controller_section_count")
public func og_results_controller_section_count(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let target = try required(out, "out")
        let sections = try controllerBox(h).controller.sections
        target.pointee = sections?.count ?? 0
        return sections == nil ? OG_NULL : OG_OK
    }
}

@_cdecl("og_results_controller_section_name")
public func og_results_controller_section_name(_ h: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) { return ownedString(try section(try controllerBox(h), index).name) } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_results_controller_section_index_title")
public func og_results_controller_section_index_title(_ h: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) { return try section(try controllerBox(h), index).indexTitle.map { ownedString($0) } } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_results_controller_section_objects")
public func og_results_controller_section_objects(_ h: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try controllerBox(h)
        return handles.make(ResultsBox(try section(box, index).objects, contextHandle: box.contextHandle))
    }
}

@_cdecl("og_results_controller_object_at")
public func og_results_controller_object_at(_ h: OpaquePointer?, _ s: Int, _ row: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try controllerBox(h)
        return try lendObject(try box.controller.object(at: IndexPath(indexes: [s, row])), from: box.contextHandle)
    }
}

@_cdecl("og_results_controller_index_of")
public func og_results_controller_index_of(_ h: OpaquePointer?, _ o: OpaquePointer?, _ s: UnsafeMutablePointer<Int>?,
                                           _ row: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try controllerBox(h)
        let target = try object(o)
        let sectionOut = try required(s, "section"), rowOut = try required(row, "row")
        guard let path = box.controller.indexPath(forObject: target) else {
            sectionOut.pointee = 0
            rowOut.pointee = 0
            return OG_NULL
        }
        sectionOut.pointee = path[0]
        rowOut.pointee = path[1]
        return OG_OK
    }
}

@_cdecl("og_results_controller_section_index_titles")
public func og_results_controller_section_index_titles(_ h: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let titles = try controllerBox(h).controller.sectionIndexTitles
        return handles.make(ValueBox(content: .collection(titles.map { .scalar(.string($0)) })))
    }
}

@_cdecl("og_results_controller_section_for_index_title")
public func og_results_controller_section_for_index_title(_ h: OpaquePointer?, _ title: UnsafePointer<CChar>?, _ index: Int,
                                                          _ out: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let target = try required(out, "out")
        target.pointee = try controllerBox(h).controller.section(forSectionIndexTitle: try string(title, "the title"), at: index)
        return OG_OK
    }
}

@_cdecl("og_results_controller_release")
public func og_results_controller_release(_ h: OpaquePointer?) {
    // Inside one of its callbacks the release waits for the callback to return.
    if let box = try? handles.get(h, ResultsControllerBox.self), box.delegate?.deferRelease() == true { return }
    handles.release(h, ResultsControllerBox.self)
}
